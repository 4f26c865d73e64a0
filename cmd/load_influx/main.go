// Command load_influx loads line-protocol files into InfluxDB 1.x over HTTP
// (/write, gzip, round-robin over --urls). Back-pressure (500
// cache-max-memory-size exceeded, 503) is retried; partial writes are
// reported with their input line numbers. See the README and
// pkg/target/influx for the flags and the guarantees.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/influx"
)

func main() {
	loadcli.Main(loadcli.Spec{
		Name:   "load_influx",
		Usage:  "load line-protocol files into InfluxDB 1.x",
		Target: "influx",
		Flags:  influx.Flags(),
		New:    newTarget,
	})
}

func newTarget(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	ic, err := influx.ConfigFromCLI(c)
	if err != nil {
		return nil, err
	}
	ic.DBName = cfg.Prepare.DBName
	return influx.New(ic)
}
