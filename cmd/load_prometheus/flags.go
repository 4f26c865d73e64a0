package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/prometheus"
)

// settings maps prometheus.Config fields to their flags (errors name
// them); the HTTP ones are loadcli's.
var settings = map[string]string{}

// httpFlags are load_prometheus's HTTP flags.
var httpFlags = loadcli.HTTPFlagSet{
	URLs:           "http://127.0.0.1:9090",
	URLsEnv:        []string{"TSLOAD_PROM_URL"},
	URLsUsage:      "comma-separated Prometheus base URLs; workers are spread over them round-robin",
	Precision:      "ns",
	PrecisionUsage: "timestamp precision of the input: ns, us, ms or s (Prometheus keeps milliseconds: finer timestamps are refused)",
	GzipUsage:      "not taken: remote write bodies are snappy-compressed",
	UserEnv:        []string{"PROM_USERNAME"},
	UserUsage:      "user (Basic auth, e.g. of a proxy in front of the server)",
	PasswordEnv:    []string{"PROM_PASSWORD"},
	PasswordUsage:  "password (prefer the PROM_PASSWORD environment variable; never printed)",
	NoToken:        true,
	RequestTimeout: httpwrite.DefaultRequestTimeout,
}

// flags are load_prometheus's own flags (pkg/loadcli adds the common ones).
func flags() []cli.Flag { return httpFlags.Flags() }

// newTarget builds the target from the flags (the db label is the
// runner's --db-name); it does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	h := loadcli.HTTP(c)
	tg, err := prometheus.New(prometheus.Config{
		Conn:      h.Conn,
		Precision: h.Precision,
		DBName:    cfg.Prepare.DBName,
		Log:       cfg.Stderr,
	})
	return tg, loadcli.Overrides{}, err
}
