package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// table is a table as the server has it.
type table struct {
	schema    *schema.Table
	types     []string // the server's type of each column
	nullable  []bool
	timeUnit  int64 // nanoseconds per unit of the time column (1e9: DateTime)
	engine    string
	replacing bool   // ReplacingMergeTree: read FINAL
	insert    string // INSERT INTO db.t (columns)
}

// ident quotes a ClickHouse identifier.
func ident(s string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
}

// from is the table as a FROM clause reads it: FINAL for a ReplacingMergeTree, so that rows
// of one key not merged yet count once.
func (tb *table) from(db string) string {
	s := ident(db) + "." + ident(tb.schema.Name)
	if tb.replacing {
		s += " FINAL"
	}
	return s
}

// columnType is the type a column of t is created with.
func columnType(t schema.Type) string {
	switch t {
	case schema.Float8:
		return "Float64"
	case schema.Float4:
		return "Float32"
	case schema.Int8:
		return "Int64"
	case schema.Int4:
		return "Int32"
	}
	return "String"
}

// ddl is the CREATE TABLE of tb (see the package doc) and the table it makes.
func (t *Target) ddl(tb *schema.Table) (string, *table) {
	made := &table{schema: tb, timeUnit: 1, engine: "MergeTree"}
	if t.cfg.Dedup {
		made.engine, made.replacing = "ReplacingMergeTree", true
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + ident(t.cfg.DBName) + "." + ident(tb.Name) + " (")
	var order []string
	for i, c := range tb.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		var typ string
		switch {
		case i == 0 && t.dt64:
			typ = "DateTime64(9, 'UTC')"
		case i == 0:
			typ, made.timeUnit = "DateTime('UTC')", 1e9
		case c.Tag:
			typ = "String"
			order = append(order, ident(c.Name))
		default:
			typ = "Nullable(" + columnType(c.Type) + ")"
		}
		b.WriteString(ident(c.Name) + " " + typ)
		made.types = append(made.types, typ)
		made.nullable = append(made.nullable, strings.HasPrefix(typ, "Nullable("))
	}
	order = append(order, ident(tb.Columns[0].Name))
	b.WriteString(") ENGINE = " + made.engine + " ORDER BY (" + strings.Join(order, ", ") + ")")
	made.insert = insertStmt(t.cfg.DBName, tb)
	return b.String(), made
}

func insertStmt(db string, tb *schema.Table) string {
	names := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		names[i] = ident(c.Name)
	}
	return "INSERT INTO " + ident(db) + "." + ident(tb.Name) + " (" + strings.Join(names, ", ") + ")"
}

// describeTable reads a table from the server's catalog, or nil when it does not exist.
func describeTable(ctx context.Context, conn backend, db, name string) (*table, error) {
	rows, err := conn.rows(ctx, "SELECT engine FROM system.tables WHERE database = "+lit(db)+" AND name = "+lit(name))
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	engine := rows[0][0]
	rows, err = conn.rows(ctx, "SELECT name, type, toString(is_in_sorting_key) FROM system.columns WHERE database = "+lit(db)+" AND table = "+lit(name))
	if err != nil {
		return nil, err
	}
	tb := &table{schema: &schema.Table{Name: name}, engine: engine, replacing: strings.HasPrefix(engine, "Replacing"), timeUnit: 1}
	timeAt := -1
	for _, r := range rows {
		if len(r) != 3 {
			return nil, fmt.Errorf("system.columns: a row of %d columns", len(r))
		}
		col, typ, key := r[0], r[1], r[2]
		st, unit, nullable := typeOf(typ)
		if st == schema.Timestamp && timeAt < 0 {
			timeAt, tb.timeUnit = len(tb.schema.Columns), unit
		}
		tb.schema.Columns = append(tb.schema.Columns, schema.Column{Name: col, Type: st, Tag: st == schema.Text && key == "1"})
		tb.types = append(tb.types, typ)
		tb.nullable = append(tb.nullable, nullable)
	}
	if len(tb.schema.Columns) == 0 {
		return nil, fmt.Errorf("system.columns has no columns of %s.%s", db, name)
	}
	if timeAt > 0 { // tsload's tables put the time first
		c := tb.schema.Columns
		c[0], c[timeAt] = c[timeAt], c[0]
		tb.types[0], tb.types[timeAt] = tb.types[timeAt], tb.types[0]
		tb.nullable[0], tb.nullable[timeAt] = tb.nullable[timeAt], tb.nullable[0]
	}
	tb.insert = insertStmt(db, tb.schema)
	return tb, nil
}

// typeOf maps a ClickHouse type to a schema.Type (0: none tsload writes), with a time's unit
// in nanoseconds and whether it is Nullable.
func typeOf(typ string) (t schema.Type, unit int64, nullable bool) {
	s := typ
	if inner, ok := strings.CutPrefix(s, "Nullable("); ok {
		s, nullable = strings.TrimSuffix(inner, ")"), true
	}
	if inner, ok := strings.CutPrefix(s, "LowCardinality("); ok {
		s = strings.TrimSuffix(inner, ")")
	}
	switch {
	case strings.HasPrefix(s, "DateTime64("):
		p, _, _ := strings.Cut(strings.TrimPrefix(s, "DateTime64("), ",")
		p = strings.TrimSuffix(strings.TrimSpace(p), ")")
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 9 {
			return 0, 0, nullable
		}
		unit = 1
		for ; n < 9; n++ {
			unit *= 10
		}
		return schema.Timestamp, unit, nullable
	case s == "DateTime" || strings.HasPrefix(s, "DateTime("):
		return schema.Timestamp, 1e9, nullable
	case s == "Float64":
		return schema.Float8, 0, nullable
	case s == "Float32":
		return schema.Float4, 0, nullable
	case s == "Int64":
		return schema.Int8, 0, nullable
	case s == "Int32":
		return schema.Int4, 0, nullable
	case s == "String":
		return schema.Text, 0, nullable
	}
	return 0, 0, nullable
}

// Catalog says which columns a table already has (load.Hooks.Catalog).
func (t *Target) Catalog(ctx context.Context, opts load.PrepareOptions, name string) (*load.CatalogTable, error) {
	conn, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	tb, err := describeTable(ctx, conn, t.cfg.DBName, name)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: reading table %q: %w", name, err)
	}
	if tb == nil {
		return nil, nil
	}
	ct := &load.CatalogTable{Table: tb.schema, Types: tb.types}
	for i := range tb.schema.Columns {
		ct.Required = append(ct.Required, i == 0)
	}
	return ct, nil
}
