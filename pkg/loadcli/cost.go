package loadcli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/runner"
)

// Flags of the cost measurement (runner.CostConfig).
const (
	FlagServerPID       = "server-pid"
	FlagServerDataDir   = "server-data-dir"
	FlagFootprintSettle = "footprint-settle"
)

// costFlags are the flags of what a load costs: the server's process and
// data directory, and the wait for the footprint to settle.
func costFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: FlagServerPID, DefaultText: "the local process listening on the target's port; a remote server is not measured", Usage: "the database server's pid, to sample its CPU, memory and I/O from /proc with its children"},
		&cli.StringFlag{Name: FlagServerDataDir, Usage: "the server's data directory: its size is recorded beside the database's own storage figures (and used when the target has none)"},
		&cli.DurationFlag{Name: FlagFootprintSettle, Usage: "after the load, wait up to this long for the tables' size on disk to stop changing (0: measure it once, right after the last batch)"},
	}
}

// costConfig maps the cost flags.
func costConfig(c *cli.Context) (runner.CostConfig, error) {
	cc := runner.CostConfig{
		ServerPID:       c.Int(FlagServerPID),
		ServerDataDir:   c.String(FlagServerDataDir),
		FootprintSettle: c.Duration(FlagFootprintSettle),
	}
	switch {
	case cc.ServerPID < 0:
		return cc, fmt.Errorf("--%s must not be negative", FlagServerPID)
	case cc.FootprintSettle < 0:
		return cc, fmt.Errorf("--%s must not be negative", FlagFootprintSettle)
	}
	return cc, nil
}
