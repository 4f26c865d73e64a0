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
}
