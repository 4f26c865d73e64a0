package cnosdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// Content answers each query with DESCRIBE TABLE (which columns are
// there, stored how), one aggregate query in DataFusion's SQL
// (contentq.DataFusion: count(DISTINCT struct(tags)), min and max time,
// per field count and an exact sum) and the row count as Count takes it.
// A table that does not exist has no rows. CnosDB acknowledges a write once it is queryable, so there
// is nothing to wait for.
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) { return t.content(ctx, q) })
}

func (t *Target) content(ctx context.Context, q fingerprint.Query) (*fingerprint.Table, error) {
	cols, tm, err := t.columns(ctx, q)
	if missingTable(err) {
		return contentq.Missing(q), nil
	}
	if err != nil {
		return nil, err
	}
	// The time column is CnosDB's, named time whatever the input called it
	// (a CSV's ts is written as the lines' timestamp).
	if tm != "" {
		q.Time = tm
	}
	p := contentq.DataFusion(q, cols, ident, false)
	rows, err := t.SQL(ctx, t.cfg.DBName, p.SQL)
	if missingTable(err) {
		return contentq.Missing(q), nil
	}
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("%s: want one row, got %d", p.SQL, len(rows))
	}
	fp, err := p.Read(rows[0])
	if err != nil {
		return nil, err
	}
	// The rows as Count has them: exact_count(*) where the server has it
	// (2.4.3 and later, whose count(*) may count rows not yet merged).
	n, err := t.Count(ctx, []string{q.Table})
	if err != nil {
		return nil, err
	}
	fp.Rows = n[q.Table]
	return fp, nil
}

// columnWait bounds how long content waits for DESCRIBE TABLE to list a
// column the load wrote (a variable for tests).
var columnWait = 10 * time.Second

// columns returns the tags and fields of q's table as DESCRIBE TABLE lists
// them, and the name of its time column (its TIME column: time). CnosDB 2.4.2 acknowledges a write that adds a column before
// DESCRIBE TABLE lists it when another write changed the table's schema at
// the same time (two batches, each adding columns, written concurrently:
// 1 in about 40 tries; queries on the column already find its values; a
// second later it is listed): so while a column the query names (what the
// load wrote) is missing, DESCRIBE is asked again, for up to columnWait.
// A column still missing then is reported by the comparison.
func (t *Target) columns(ctx context.Context, q fingerprint.Query) (map[string]fingerprint.Kind, string, error) {
	deadline := time.Now().Add(columnWait)
	for pause := 20 * time.Millisecond; ; pause = min(2*pause, time.Second) {
		desc, err := t.SQL(ctx, t.cfg.DBName, "DESCRIBE TABLE "+ident(q.Table))
		if err != nil {
			return nil, "", err
		}
		cols, tm := map[string]fingerprint.Kind{}, ""
		for _, c := range desc {
			name, _ := c["column_name"].(string)
			role, _ := c["column_type"].(string)
			typ, _ := c["data_type"].(string)
			switch {
			case role == "TIME":
				tm = name
			case role == "TAG":
				cols[name] = fingerprint.String
			case role == "FIELD":
				cols[name] = kindOf(typ)
			}
		}
		missing := ""
		for _, f := range q.Fields {
			if _, ok := cols[f.Name]; !ok {
				missing = f.Name
			}
		}
		for _, tag := range q.Tags {
			if _, ok := cols[tag]; !ok {
				missing = tag
			}
		}
		if missing == "" || time.Now().Add(pause).After(deadline) {
			return cols, tm, nil
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

func missingTable(err error) bool {
	var se *sqlError
	return errors.As(err, &se) && strings.Contains(strings.ToLower(se.desc), "table not found")
}

// kindOf maps a CnosDB field type (DESCRIBE's data_type) to its kind
// (contentq.Opaque for a type content verification does not aggregate).
func kindOf(typ string) fingerprint.Kind {
	switch strings.ToUpper(typ) {
	case "DOUBLE":
		return fingerprint.Float
	case "BIGINT":
		return fingerprint.Int
	case "BIGINT UNSIGNED":
		return fingerprint.Uint
	case "STRING":
		return fingerprint.String
	case "BOOLEAN":
		return fingerprint.Bool
	}
	return contentq.Opaque
}
