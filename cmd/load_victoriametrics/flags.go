package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/victoriametrics"
)

// settings maps victoriametrics.Config fields to their flags (errors name
// them); the HTTP ones are loadcli's.
var settings = map[string]string{"Protocol": "protocol"}

// httpFlags are load_victoriametrics's HTTP flags.
var httpFlags = loadcli.HTTPFlagSet{
	URLs:           "http://127.0.0.1:8428",
	URLsEnv:        []string{"TSLOAD_VM_URL"},
	URLsUsage:      "comma-separated VictoriaMetrics base URLs; workers are spread over them round-robin",
	Precision:      "ns",
	PrecisionUsage: "timestamp precision of the input: ns, us, ms or s (VictoriaMetrics keeps milliseconds: finer timestamps are refused)",
	Gzip:           true,
	UserEnv:        []string{"VM_USERNAME"},
	UserUsage:      "user (Basic auth, the server's -httpAuth.username)",
	PasswordEnv:    []string{"VM_PASSWORD"},
	PasswordUsage:  "password (prefer the VM_PASSWORD environment variable; never printed)",
	NoToken:        true,
	RequestTimeout: httpwrite.DefaultRequestTimeout,
}

// flags are load_victoriametrics's own flags (pkg/loadcli adds the common ones).
func flags() []cli.Flag {
	return append(httpFlags.Flags(), &cli.StringFlag{Name: "protocol", Value: victoriametrics.ProtocolLine,
		Usage: "write path: line (line protocol to /write) or remote-write (Prometheus remote write 1.0 to /api/v1/write, samples made by the loader)"})
}

// newTarget builds the target from the flags (the db label is the
// runner's --db-name); it does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	h := loadcli.HTTP(c)
	tg, err := victoriametrics.New(victoriametrics.Config{
		Conn:      h.Conn,
		Precision: h.Precision,
		Protocol:  c.String("protocol"),
		DBName:    cfg.Prepare.DBName,
		Log:       cfg.Stderr,
	})
	return tg, loadcli.Overrides{}, err
}
