// Command load_timescale loads tsload files (pgcopy, csv or ILP) into
// PostgreSQL or TimescaleDB with COPY or INSERT. See the README and
// pkg/target/timescale for the flags and the guarantees.
package main

import "github.com/tsload/tsload/pkg/loadcli"

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_timescale", Usage: "load pgcopy, csv or ILP files into PostgreSQL / TimescaleDB", Target: "timescale", Flags: timescaleFlags(), New: newTarget, Settings: settings}
}
