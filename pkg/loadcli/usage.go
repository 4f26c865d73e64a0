package loadcli

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/cliflag"
)

// usageError answers a flag parsing error as every tsload command does
// (cliflag.UsageError).
func usageError(err error, flags []cli.Flag) error { return cliflag.UsageError(err, flags, "") }
