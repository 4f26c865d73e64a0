package timescale

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// catalogTypes are the column types (pg_type.typname) tsload has a
// schema.Type for. A timestamp without time zone takes the same binary
// value and text as timestamptz; the text types all read a tag.
var catalogTypes = map[string]schema.Type{
	"timestamptz": schema.Timestamp, "timestamp": schema.Timestamp,
	"text": schema.Text, "varchar": schema.Text, "bpchar": schema.Text, "name": schema.Text,
	"float8": schema.Float8, "float4": schema.Float4, "int8": schema.Int8, "int4": schema.Int4,
}

// Catalog (load.Hooks.Catalog) reads table name's columns from pg_attribute:
// in their order, with the server's type names, required when NOT NULL
// without a default, with their binary lengths (typlen). Text columns are
// the tags. Nil when the database or
// the table (on the search path) does not exist.
func (t *Target) Catalog(ctx context.Context, opts load.PrepareOptions, name string) (*load.CatalogTable, error) {
	db := t.cfg.DBName
	if opts.DBName != "" {
		db = opts.DBName
	}
	conn, err := t.connect(ctx, db)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name: no such database
			return nil, nil
		}
		return nil, fmt.Errorf("timescale: connecting to database %q: %w", db, err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), ty.typname, a.attnotnull AND NOT a.atthasdef, greatest(ty.typlen, 0)
		FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, schema.QuoteIdent(name))
	if err != nil {
		return nil, fmt.Errorf("timescale: reading the columns of %q: %s", name, describe(err, nil))
	}
	defer rows.Close()
	ct := &load.CatalogTable{Table: &schema.Table{Name: name}}
	for rows.Next() {
		var col, typ, typname string
		var required bool
		var length int
		if err := rows.Scan(&col, &typ, &typname, &required, &length); err != nil {
			return nil, fmt.Errorf("timescale: reading the columns of %q: %w", name, err)
		}
		st := catalogTypes[typname]
		ct.Table.Columns = append(ct.Table.Columns, schema.Column{Name: col, Type: st, Tag: st == schema.Text})
		ct.Types = append(ct.Types, typ)
		ct.Required = append(ct.Required, required)
		ct.Lengths = append(ct.Lengths, length)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("timescale: reading the columns of %q: %s", name, describe(err, nil))
	}
	if len(ct.Table.Columns) == 0 {
		return nil, nil
	}
	t.mu.Lock()
	if t.existing == nil {
		t.existing = map[string]bool{}
	}
	t.existing[name] = true
	t.mu.Unlock()
	return ct, nil
}
