package loadcli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/cost"
)

// costConfig maps the cost flags.
func costConfig(c *cli.Context) (cost.Config, error) {
	cc := cost.Config{
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
