package load

import (
	"github.com/tsload/tsload/pkg/schema"
)

// CatalogTable is a table as a database's catalog describes it.
type CatalogTable struct {
	// Table has the columns in the database's order. A column of a type
	// tsload has no schema.Type for has Type 0; Types names it.
	Table *schema.Table
	// Types are the database's own names of the columns' types
	// ("double precision", "SYMBOL", "TAG STRING"), for messages.
	Types []string
	// Required marks the columns a row must give (NOT NULL without a
	// default; the designated timestamp).
	Required []bool
	// Lengths are the binary (pgcopy) lengths of the columns' values,
	// 0 for variable ones (nil: not a database of pgcopy).
	Lengths []int
}
