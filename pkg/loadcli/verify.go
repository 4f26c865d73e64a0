package loadcli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/runner"
)

// The values of --verify.
const (
	VerifyCount   = "count"   // rows per table, before and after
	VerifyContent = "content" // per-table fingerprints (docs/verify.md)
	VerifyOff     = "off"
)

// verifyConfig maps --verify (and, for content, --precision: the unit of
// ILP timestamps) to cfg. "true" and "false", what --verify took when it
// was a boolean, still mean count and off.
func verifyConfig(c *cli.Context, cfg *runner.Config) error {
	switch v := strings.ToLower(c.String(FlagVerify)); v {
	case VerifyCount, "true", "1":
		cfg.Verify = true
	case VerifyContent:
		cfg.Verify, cfg.VerifyContent = true, true
	case VerifyOff, "false", "0":
	default:
		return fmt.Errorf("--%s %q: want %s, %s or %s", FlagVerify, v, VerifyCount, VerifyContent, VerifyOff)
	}
	unit, err := precisionUnit(c.String(FlagPrecision))
	if err != nil {
		return err
	}
	cfg.ILPUnit = unit
	return nil
}

// precisionUnit is the nanoseconds in a unit of --precision (InfluxDB's
// and CnosDB's names; empty: the loader has no such flag, nanoseconds).
func precisionUnit(p string) (int64, error) {
	switch p {
	case "", "n", "ns":
		return 1, nil
	case "u", "us":
		return 1e3, nil
	case "ms":
		return 1e6, nil
	case "s":
		return 1e9, nil
	case "m":
		return 60e9, nil
	case "h":
		return 3600e9, nil
	}
	return 0, fmt.Errorf("--%s %q: unknown timestamp precision", FlagPrecision, p)
}
