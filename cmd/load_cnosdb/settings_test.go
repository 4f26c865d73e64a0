package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestErrorsNameFlags: pkg/target/cnosdb names its Config fields; the
// command shows the flags instead.
func TestErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--precision", "s"}, `invalid --precision "s" (CnosDB accepts ms, us or ns`},
		{[]string{"--tenant", ""}, "empty --tenant"},
		{[]string{"--urls", " , "}, "no URL given (--urls)"},
		{[]string{"--urls", "ftp://x"}, `invalid URL "ftp://x": scheme must be http or https`},
		{[]string{"--gzip", "--gzip-level", "10"}, "invalid --gzip-level 10 (want 1-9)"},
		{[]string{"--db-ttl", "10 days'; DROP"}, `invalid --db-ttl "10 days'; DROP" (want a duration such as 30d, or INF)`},
		{[]string{"--db-ttl", "forever and ever"}, `invalid --db-ttl "forever and ever" (want a duration such as 30d, or INF)`},
		{[]string{"--db-vnode-duration", "x"}, `invalid --db-vnode-duration "x" (want a duration such as 1d)`},
		{[]string{"--db-shards", "-1"}, "invalid --db-shards -1"},
		{[]string{"--db-replica", "-2"}, "invalid --db-replica -2"},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
