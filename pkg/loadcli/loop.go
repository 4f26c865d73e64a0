package loadcli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/runner"
)

// Flags of a long run (runner.Config.Loop and Duration; docs/rate.md).
const (
	FlagLoop     = "loop"
	FlagDuration = "duration"
)

func loopFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: FlagLoop, Usage: "replay the files pass after pass, each pass's timestamps moved past the last's by the files' time span (last - first timestamp + 1 unit), so nothing overwrites and verification counts every pass; ends at --duration, --limit or the end of --rate-steps' MAX"},
		&cli.DurationFlag{Name: FlagDuration, Usage: "stop reading at this age of the run (e.g. 30m); what was sent is written and verified; without --loop the end of the input may come first"},
	}
}

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
