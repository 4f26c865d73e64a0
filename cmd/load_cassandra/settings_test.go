package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestErrorsNameFlags: pkg/target/cassandra names its Config fields; the
// command shows the flags instead.
func TestErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--consistency", "MOST"}, `unknown --consistency "MOST"`},
		{[]string{"--consistency", "ANY"}, "--consistency ANY is for writes only"},
		{[]string{"--partition-bucket", "1us"}, "invalid --partition-bucket 1µs (want whole milliseconds"},
		{[]string{"--concurrency", "-1"}, "invalid --concurrency -1"},
		{[]string{"--host", "nohostport"}, `invalid --host "nohostport" (want host:port)`},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
