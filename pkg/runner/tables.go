package runner

import (
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// tableNames are the names of tables.
func tableNames(tables []*schema.Table) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.Name
	}
	return out
}

// batchTables are the names of the tables of batch b.
func batchTables(b *load.Batch) []string {
	out := make([]string, len(b.Tables))
	for i, t := range b.Tables {
		out[i] = t.Name
	}
	return out
}
