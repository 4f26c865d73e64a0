package load

import (
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
