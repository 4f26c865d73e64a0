package questdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// catalogTypes are the QuestDB column types tsload has a schema.Type for;
// SYMBOL columns are the tags (STRING and VARCHAR are text fields).
var catalogTypes = map[string]schema.Type{
	"TIMESTAMP": schema.Timestamp, "SYMBOL": schema.Text, "STRING": schema.Text, "VARCHAR": schema.Text,
	"DOUBLE": schema.Float8, "FLOAT": schema.Float4, "LONG": schema.Int8, "INT": schema.Int4,
	"SHORT": schema.Int4, "BYTE": schema.Int4,
}

// Catalog (load.Hooks.Catalog) reads table name with table_columns(): the
// designated timestamp first (and required), SYMBOL columns the tags.
// Nil when no such table exists (tables()).
func (t *Target) Catalog(ctx context.Context, _ load.PrepareOptions, name string) (*load.CatalogTable, error) {
	q, err := t.withQuerier(ctx)
	if err != nil {
		return nil, err
	}
	found, err := q.query(ctx, "SELECT table_name FROM tables() WHERE table_name = "+literal(name))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	rows, err := q.query(ctx, `SELECT "column", type, designated FROM table_columns(`+literal(name)+`)`)
	if err != nil {
		return nil, err
	}
	ct := &load.CatalogTable{Table: &schema.Table{Name: name}}
	for _, row := range rows {
		if len(row) < 3 {
			return nil, fmt.Errorf("questdb: table_columns(%s): a row of %d values", name, len(row))
		}
		c := schema.Column{Name: row[0], Type: catalogTypes[row[1]], Tag: row[1] == "SYMBOL"}
		if row[2] == "true" {
			ct.Table.Columns = append([]schema.Column{c}, ct.Table.Columns...)
			ct.Types = append([]string{row[1]}, ct.Types...)
			ct.Required = append([]bool{true}, ct.Required...)
			continue
		}
		ct.Table.Columns = append(ct.Table.Columns, c)
		ct.Types = append(ct.Types, row[1])
		ct.Required = append(ct.Required, false)
	}
	if len(ct.Table.Columns) == 0 {
		return nil, nil
	}
	return ct, nil
}

// literal quotes a QuestDB string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
