package timescale

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/format/tsbs"
	"github.com/tsload/tsload/pkg/schema"
)

// tsbsLayout reports whether tables are those of a TSBS file
// (pkg/format/tsbs): a tags table of id and the tags, and measurement
// tables of time, tags_id and fields. They are then made as TSBS's
// loader (tsbs_load_timescaledb, default flags) makes them, not as
// tsload's tables are.
func tsbsLayout(tables []*schema.Table, prefix string) bool {
	tags := false
	for _, tb := range tables {
		cols := tb.ColumnNames()
		if tb.Name == prefix+tsbs.TagsTable {
			tags = len(cols) > 1 && cols[0] == "id"
			continue
		}
		if len(cols) < 3 || cols[0] != "time" || cols[1] != "tags_id" {
			return false
		}
	}
	return tags
}

// tsbsTypes are the PostgreSQL types TSBS's loader gives the columns.
func tsbsType(t schema.Type) string {
	switch t {
	case schema.Text:
		return "TEXT"
	case schema.Int8:
		return "BIGINT"
	case schema.Int4:
		return "INTEGER"
	}
	return "DOUBLE PRECISION"
}

// createTSBSLocked makes TSBS's tables that do not exist: tags (id
// SERIAL PRIMARY KEY, the tags; a unique index on them all, an index on
// the first), and per measurement (time timestamptz, tags_id integer, the
// fields DOUBLE PRECISION, additional_tags JSONB DEFAULT NULL; indexes on
// (tags_id, time DESC) and (time DESC); a hypertable on time, by
// ChunkTime, without default indexes, when the target makes hypertables).
// The tables are then loaded as tables that exist. t.mu is held.
func (t *Target) createTSBSLocked(ctx context.Context, conn *pgx.Conn, tables []*schema.Table) error {
	q := schema.QuoteIdent
	for _, tb := range tables {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", q(tb.Name)).Scan(&exists); err != nil {
			return fmt.Errorf("timescale: %s", describe(err, nil))
		}
		var stmts []string
		switch {
		case exists:
		case tb.Name == t.opts.TablePrefix+tsbs.TagsTable:
			t.tsbsTags = tb.Name
			var cols, names []string
			for _, c := range tb.Columns[1:] {
				cols = append(cols, q(c.Name)+" "+tsbsType(c.Type))
				names = append(names, q(c.Name))
			}
			stmts = append(stmts,
				"CREATE TABLE "+q(tb.Name)+" (id SERIAL PRIMARY KEY, "+strings.Join(cols, ", ")+")",
				"CREATE UNIQUE INDEX ON "+q(tb.Name)+" ("+strings.Join(names, ", ")+")",
				"CREATE INDEX ON "+q(tb.Name)+" ("+names[0]+")")
		default:
			var cols []string
			for _, c := range tb.Columns[2:] {
				cols = append(cols, q(c.Name)+" DOUBLE PRECISION")
			}
			stmts = append(stmts,
				"CREATE TABLE "+q(tb.Name)+" (time timestamptz, tags_id integer, "+strings.Join(cols, ", ")+", additional_tags JSONB DEFAULT NULL)",
				"CREATE INDEX ON "+q(tb.Name)+" (tags_id, \"time\" DESC)",
				"CREATE INDEX ON "+q(tb.Name)+" (\"time\" DESC)")
			if t.hypertable {
				stmts = append(stmts, "SELECT create_hypertable("+sqlLiteral(q(tb.Name))+"::regclass, 'time'::name, chunk_time_interval => "+
					strconv.FormatInt(t.cfg.ChunkTime.Microseconds(), 10)+", create_default_indexes => FALSE)")
			}
		}
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("timescale: creating TSBS's table %q: %s: %w", tb.Name, s, &writeError{msg: describe(err, nil), err: err})
			}
		}
		if t.existing == nil {
			t.existing = map[string]bool{}
		}
		t.existing[tb.Name] = true
	}
	return nil
}

// finishTSBSLocked moves the sequence of a TSBS tags table made by this
// target past the ids the load gave (the file's series, numbered from 1),
// so that TSBS's own loader can add series to it afterwards. t.mu is held.
func (t *Target) finishTSBSLocked(ctx context.Context, conn *pgx.Conn) error {
	if t.tsbsTags == "" {
		return nil
	}
	rel := sqlLiteral(schema.QuoteIdent(t.tsbsTags))
	sql := "SELECT setval(pg_get_serial_sequence(" + rel + ", 'id'), (SELECT coalesce(max(id), 0) + 1 FROM " + schema.QuoteIdent(t.tsbsTags) + "), false)"
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("timescale: the sequence of TSBS's %q: %w", t.tsbsTags, &writeError{msg: describe(err, nil), err: err})
	}
	return nil
}
