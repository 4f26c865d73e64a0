package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestErrorsNameFlags: pkg/target/timescale names its Config fields; the
// command shows the flags instead.
func TestErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--method", "bulk"}, `unknown --method "bulk" (want auto, copy-binary, copy-csv, insert-multi or insert)`},
		{[]string{"--commit", "never"}, `unknown --commit "never" (want batch or row)`},
		{[]string{"--use-hypertable", "maybe"}, `unknown --use-hypertable "maybe" (want auto, true or false)`},
		{[]string{"--chunk-time", "10ms"}, "--chunk-time 10ms is too small"},
		{[]string{"--create-indexes", "sometimes"}, `unknown --create-indexes "sometimes"`},
		{[]string{"--request-timeout", "-1s"}, "--request-timeout -1s is negative"},
		{[]string{"--partitions", "-1"}, "--partitions -1 is negative"},
		{[]string{"--unlogged", "--use-hypertable", "true"}, "--unlogged needs plain tables: TimescaleDB hypertables cannot be unlogged (use --use-hypertable=false)"},
		{[]string{"--columnstore", "--use-hypertable", "false"},
			"--partitions, --columnstore, --compress-after-load and --direct-compress need hypertables (not --use-hypertable=false or --unlogged)"},
		{[]string{"--direct-compress", "--method", "insert"}, "--direct-compress compresses during COPY: --method insert does not COPY"},
		{[]string{"--method", "copy-binary", "--format", "csv"}, "--format csv: --method copy-binary needs pgcopy or ILP input, not csv"},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
