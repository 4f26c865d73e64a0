package loadcli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/runner"
)

// Verify is what --verify checks after a load.
type Verify string

// The values of --verify.
const (
	VerifyCount   Verify = "count"   // rows per table, before and after
	VerifyContent Verify = "content" // per-table fingerprints (docs/verify.md)
	VerifyOff     Verify = "off"
)

// ParseVerify parses a --verify value. "true" and "false" (and 1, 0),
// what --verify took when it was a boolean, are deprecated spellings of
// count and off, still accepted.
func ParseVerify(s string) (Verify, error) {
	switch v := Verify(strings.ToLower(s)); v {
	case VerifyCount, VerifyContent, VerifyOff:
		return v, nil
	case "true", "1":
		return VerifyCount, nil
	case "false", "0":
		return VerifyOff, nil
	}
	return "", fmt.Errorf("--%s %q: want %s, %s or %s", FlagVerify, strings.ToLower(s), VerifyCount, VerifyContent, VerifyOff)
}

// verifyConfig maps --verify to cfg. The unit of the input's timestamps
// (--precision) is the target's to parse and declare (load.Hooks.LineUnit).
func verifyConfig(c *cli.Context, cfg *runner.Config) error {
	v, err := ParseVerify(c.String(FlagVerify))
	if err != nil {
		return err
	}
	cfg.Verify, cfg.VerifyContent = v != VerifyOff, v == VerifyContent
	return nil
}
