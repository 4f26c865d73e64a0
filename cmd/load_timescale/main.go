// Command load_timescale loads tsload files (pgcopy, csv or ILP) into
// PostgreSQL or TimescaleDB with COPY or INSERT. See the README and
// pkg/target/timescale for the flags and the guarantees.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/timescale"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{
		Name:   "load_timescale",
		Usage:  "load pgcopy, csv or ILP files into PostgreSQL / TimescaleDB",
		Target: "timescale",
		Flags:  timescaleFlags(),
		New:    newTarget,
	}
}

func newTarget(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	tc := configFromCLI(c)
	tc.DBName = cfg.Prepare.DBName
	if cfg.Format != format.Unknown {
		// Reject a method that cannot carry the input before reading it.
		m, err := timescale.ParseMethod(string(tc.Method))
		if err != nil {
			return nil, err
		}
		if _, err := m.For(cfg.Format); err != nil {
			return nil, err
		}
	}
	return timescale.New(tc)
}
