package loadcli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/runner"
)

// loopConfig maps the long-run flags; the refusals name the flags before
// anything is opened.
func loopConfig(c *cli.Context, cfg *runner.Config) error {
	cfg.Loop, cfg.Duration = c.Bool(FlagLoop), c.Duration(FlagDuration)
	switch {
	case cfg.Duration < 0:
		return fmt.Errorf("--%s must not be negative", FlagDuration)
	case !cfg.Loop:
		return nil
	case len(cfg.Inputs) == 0:
		return fmt.Errorf("--%s replays its input: give --%s (stdin cannot be read twice)", FlagLoop, FlagFile)
	case cfg.Duration == 0 && cfg.Limit == 0 && cfg.Pace.Steps.Max == 0:
		return fmt.Errorf("--%s needs an end: --%s, --%s or --%s with a MAX", FlagLoop, FlagDuration, FlagLimit, FlagRateSteps)
	}
	return nil
}
