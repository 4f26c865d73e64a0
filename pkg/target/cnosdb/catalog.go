package cnosdb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// catalogTypes are the CnosDB field types tsload has a schema.Type for.
var catalogTypes = map[string]schema.Type{
	"DOUBLE": schema.Float8, "BIGINT": schema.Int8, "STRING": schema.Text,
}

// Catalog (load.Hooks.Catalog) reads table name with DESCRIBE TABLE: the TIME
// column first, TAG columns the tags. Nil when the database or the table
// does not exist.
func (t *Target) Catalog(ctx context.Context, opts load.PrepareOptions, name string) (*load.CatalogTable, error) {
	db := t.cfg.DBName
	if opts.DBName != "" {
		db = opts.DBName
	}
	rows, err := t.SQL(ctx, db, "DESCRIBE TABLE "+ident(name))
	var se *sqlError
	if errors.As(err, &se) && (strings.Contains(se.desc, "[030019]") || strings.Contains(se.desc, "[030017]")) {
		return nil, nil // table not found, database not found
	}
	if err != nil {
		return nil, fmt.Errorf("cnosdb: %w", err)
	}
	ct := &load.CatalogTable{Table: &schema.Table{Name: name}}
	for _, row := range rows {
		col, _ := row["column_name"].(string)
		kind, _ := row["column_type"].(string)
		typ, _ := row["data_type"].(string)
		c := schema.Column{Name: col}
		switch kind {
		case "TIME":
			c.Type = schema.Timestamp
		case "TAG":
			c.Type, c.Tag = schema.Text, true
		default:
			c.Type = catalogTypes[typ]
		}
		desc := kind + " " + typ
		if kind == "TIME" {
			// The time column first, as the schema's tables have it.
			ct.Table.Columns = append([]schema.Column{c}, ct.Table.Columns...)
			ct.Types = append([]string{desc}, ct.Types...)
			ct.Required = append([]bool{true}, ct.Required...)
			continue
		}
		ct.Table.Columns = append(ct.Table.Columns, c)
		ct.Types = append(ct.Types, desc)
		ct.Required = append(ct.Required, false)
	}
	if len(ct.Table.Columns) == 0 {
		return nil, nil
	}
	return ct, nil
}
