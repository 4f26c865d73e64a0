// Package schema describes the tables that tsload generates and loads: their
// columns, the column types, and how a table is declared in each database.
//
// It is the contract between the generator (which writes rows in a table's
// column order) and the loaders (which create the table before loading it).
package schema

import (
	"fmt"
	"strings"
)

// Type is a column type. The numeric codes are part of the multi-table
// pgcopy stream format (docs/formats.md) and must never change.
type Type uint8

// Column types.
const (
	Timestamp Type = 1 // timestamptz; nanoseconds in ILP, microseconds in COPY binary
	Text      Type = 2 // a tag: text in PostgreSQL, SYMBOL in QuestDB
	Float8    Type = 3 // double precision
	Float4    Type = 4 // real
	Int8      Type = 5 // bigint
	Int4      Type = 6 // integer
)

var typeNames = map[Type]string{
	Timestamp: "timestamptz",
	Text:      "text",
	Float8:    "float8",
	Float4:    "float4",
	Int8:      "int8",
	Int4:      "int4",
}

// String returns the type's name as used in the multi-table CSV header
// (also a valid PostgreSQL type name).
func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Valid reports whether t is one of the defined types.
func (t Type) Valid() bool { _, ok := typeNames[t]; return ok }

// ParseType parses a type name written by Type.String.
func ParseType(s string) (Type, error) {
	for t, n := range typeNames {
		if n == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown column type %q", s)
}

// Column is one column of a table.
type Column struct {
	Name string
	Type Type
	Tag  bool // a series-identifying tag (ILP tag, SYMBOL in QuestDB, DEDUP key)
}

// Table is a table's name and its columns in the order rows are written.
// The first column is always the timestamp.
type Table struct {
	Name    string
	Columns []Column
}

// TimeColumn returns the name of the timestamp column.
func (t *Table) TimeColumn() string { return t.Columns[0].Name }

// ColumnNames returns the column names in order.
func (t *Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// Tags returns the tag column names in order.
func (t *Table) Tags() []string {
	var names []string
	for _, c := range t.Columns {
		if c.Tag {
			names = append(names, c.Name)
		}
	}
	return names
}

// Fields returns the number of non-tag, non-time columns: the "metrics" a row
// carries when none is NULL.
func (t *Table) Fields() int {
	n := 0
	for i, c := range t.Columns {
		if i > 0 && !c.Tag {
			n++
		}
	}
	return n
}

// QuoteIdent quotes a PostgreSQL identifier.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// PostgresDDL returns a CREATE TABLE IF NOT EXISTS statement for PostgreSQL.
func (t *Table) PostgresDDL(unlogged bool) string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if unlogged {
		b.WriteString("UNLOGGED ")
	}
	b.WriteString("TABLE IF NOT EXISTS ")
	b.WriteString(QuoteIdent(t.Name))
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteIdent(c.Name))
		b.WriteByte(' ')
		b.WriteString(c.Type.String())
		if i == 0 {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(")")
	return b.String()
}
