// Command load_cnosdb loads line-protocol files into CnosDB 2.x over HTTP
// (/api/v1/write with Basic auth, round-robin over --urls). Memory pressure
// and empty 500s are retried; every other refusal is fatal and never counted
// as loaded. See the README and pkg/target/cnosdb for the flags and the
// guarantees.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/cnosdb"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{
		Name:   "load_cnosdb",
		Usage:  "load line-protocol files into CnosDB 2.x",
		Target: "cnosdb",
		Flags:  cnosdbFlags(),
		New:    newTarget,
	}
}

func newTarget(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	cc, err := configFromCLI(c)
	if err != nil {
		return nil, err
	}
	cc.DBName = cfg.Prepare.DBName
	cc.Warn = cfg.Stderr
	return cnosdb.New(cc)
}
