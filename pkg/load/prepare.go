package load

import (
	"context"
	"strings"

	"github.com/tsload/tsload/pkg/schema"
)

// LookupPrefixed returns the schema lookup knows for name without prefix
// (PrepareOptions.TablePrefix), renamed to name: a use-case table loaded
// under a prefix keeps its columns. Nil when name lacks the prefix or
// lookup knows nothing; with no prefix it is lookup(name).
func LookupPrefixed(lookup func(string) *schema.Table, prefix, name string) *schema.Table {
	if lookup == nil {
		return nil
	}
	if prefix == "" {
		return lookup(name)
	}
	base, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return nil
	}
	tb := lookup(base)
	if tb == nil {
		return nil
	}
	c := *tb
	c.Name = name
	return &c
}

// A TableDropper is a Target that drops tables one at a time under
// PrepareOptions.DropDB and may leave some alone (QuestDB has no database
// to drop: it drops the use-case tables it knows and leaves any other table
// to the server). Drops reports whether table was, or will be before this
// run's first write to it, dropped. The runner counts the rows of every
// other table before loading, as it does without DropDB, so verification
// proves what this run added to a table that kept its rows. A Target that
// is not a TableDropper drops everything it loads under DropDB.
type TableDropper interface {
	Drops(table string) bool
}

// A Pinger is a Target that can check, once and before Prepare, that its
// server answers at the configured address. The runner calls Ping once,
// without retrying: a server that is not there at the start (connection
// refused, an unknown host) fails the run at once, while the same error in
// the middle of a load is a retryable lost connection. Ping should take
// well under a second on a reachable server.
type Pinger interface {
	Ping(ctx context.Context) error
}

// A Describer is a Target that says where the load went and what it made of
// the tables. The runner calls Describe once at the end of a run that
// loaded (after verification) and records it as Results.Setup; a key of
// Setup.Settings that names a recorded flag replaces the flag's value, so
// the results record what was done rather than what was asked.
type Describer interface {
	Describe() Setup
}
