package questdb

import (
	"strings"

	"github.com/tsload/tsload/pkg/schema"
)

// TimestampColumn is the designated timestamp's name: the column QuestDB
// gives an ILP line's timestamp. (CSV and pgcopy call it "time"; this target
// loads ILP only.)
const TimestampColumn = "timestamp"

// quote quotes a QuestDB identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// columnType is the QuestDB column type for c. Tags are SYMBOL whatever
// their schema type (ILP tags are always symbols in QuestDB).
func columnType(c schema.Column) string {
	if c.Tag {
		return "SYMBOL"
	}
	switch c.Type {
	case schema.Float8:
		return "DOUBLE"
	case schema.Float4:
		return "FLOAT"
	case schema.Int8:
		return "LONG"
	case schema.Int4:
		return "INT"
	case schema.Timestamp:
		return "TIMESTAMP"
	}
	return "VARCHAR"
}

// CreateTableSQL returns the CREATE TABLE IF NOT EXISTS statement for t as
// an ILP target: the first column becomes the designated timestamp named
// "timestamp", tags SYMBOL, PARTITION BY DAY WAL, and with dedup
// DEDUP UPSERT KEYS(timestamp, <tags>).
func CreateTableSQL(t *schema.Table, dedup bool) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	b.WriteString(quote(t.Name))
	b.WriteString(" (")
	b.WriteString(quote(TimestampColumn))
	b.WriteString(" TIMESTAMP")
	for _, c := range t.Columns[1:] {
		b.WriteString(", ")
		b.WriteString(quote(c.Name))
		b.WriteByte(' ')
		b.WriteString(columnType(c))
	}
	b.WriteString(") TIMESTAMP(")
	b.WriteString(quote(TimestampColumn))
	b.WriteString(") PARTITION BY DAY WAL")
	if dedup {
		b.WriteString(" DEDUP UPSERT KEYS(")
		b.WriteString(quote(TimestampColumn))
		for _, tag := range t.Tags() {
			b.WriteString(", ")
			b.WriteString(quote(tag))
		}
		b.WriteString(")")
	}
	return b.String()
}
