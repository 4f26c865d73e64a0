package load

import (
	"time"
)

// Size is how much storage a database uses for some tables, and how that
// was measured.
type Size struct {
	Bytes int64
	// Method names the database's own accounting that was read, e.g.
	// "hypertable_size()" or "SHOW STATS shard diskBytes (database x)".
	Method string
	// Refresh is how often the server recomputes the figure (0: on every
	// query); a size counts as settled only once unchanged for longer.
	Refresh time.Duration
	// Mark says the figure is not a plain measure of the rows' storage
	// (results.MarkLowerBound, results.MarkPreallocated; "" when it is). A MarkLowerBound
	// given for rows not yet in files is dropped once FlushStorage
	// succeeded. DataBytes is the data's own size beside it, where the
	// database can tell it (0: it cannot).
	Mark      string
	DataBytes int64
}
