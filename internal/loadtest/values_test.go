package loadtest

import "testing"

// TestValueTable: the value table of docs/formats.md has a row for every
// class the suite loads, a column for every target, and an outcome in
// every cell.
func TestValueTable(t *testing.T) {
	table := ValueTable(t)
	for _, col := range []string{"QuestDB", "TimescaleDB", "InfluxDB 1.x", "InfluxDB 2.x", "InfluxDB 3", "CnosDB", "VictoriaMetrics",
		"Prometheus", "ClickHouse", "chDB", "Cassandra", "DuckDB", "SQLite", "tonbo", "tonbo, WAL off"} {
		if len(table[col]) != len(valueClasses) {
			t.Errorf("column %q: %d of %d classes", col, len(table[col]), len(valueClasses))
		}
	}
}
