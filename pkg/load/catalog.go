package load

import (
	"context"
	"time"

	"github.com/tsload/tsload/pkg/schema"
)

// A Cataloger is a Target that can say which columns a table already has in
// the database, so that a table that exists decides how an input is loaded
// into it (its columns and types), not a use case of the same name. The
// runner asks before Prepare (and with DoLoad false, when the server
// answers), for each table an input names, with opts as Prepare will get
// them; it does not ask when opts.DropDB drops the tables anyway.
type Cataloger interface {
	// Catalog returns table name (the name as loaded, any TablePrefix
	// included) as the database has it, or nil, nil when the table (or its
	// database) does not exist.
	Catalog(ctx context.Context, opts PrepareOptions, name string) (*CatalogTable, error)
}

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

// A LineUnit is a Target of line protocol whose lines' timestamps are read
// in a unit other than nanoseconds (a --precision): the runner writes the
// lines it makes from tabular input (CSV) in that unit.
type LineUnit interface {
	LineUnit() time.Duration
}
