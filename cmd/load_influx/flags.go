package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// Flag names of load_influx (the HTTP ones are loadcli's).
const (
	flagAPI                       = "api"
	flagRP, flagConsistency       = "rp", "consistency"         // v1
	flagOrg, flagBucket           = "org", "bucket"             // v2
	flagAcceptPartial, flagNoSync = "accept-partial", "no-sync" // v3
)

// settings maps influx.Config fields to their flags (errors name them).
var settings = map[string]string{
	"API": flagAPI, "Org": flagOrg, "Bucket": flagBucket, "AcceptPartial": flagAcceptPartial,
	"NoSync": flagNoSync, "RP": flagRP, "Consistency": flagConsistency,
}

// httpFlags are load_influx's HTTP flags.
var httpFlags = loadcli.HTTPFlagSet{
	URLs:           "http://127.0.0.1:8086",
	URLsEnv:        []string{"TSLOAD_INFLUX_URL"},
	URLsUsage:      "comma-separated InfluxDB base URLs; workers are spread over them round-robin",
	Precision:      "n",
	PrecisionUsage: "timestamp precision of the input: n, u, ms, s (and m or h on v1)",
	Gzip:           true,
	TokenEnv:       []string{"INFLUX_TOKEN"},
	TokenUsage:     "API token, sent as Authorization: Token (v2, v3; prefer the INFLUX_TOKEN environment variable; never printed)",
	UserEnv:        []string{"INFLUX_USERNAME"},
	UserUsage:      "v1: user name (Basic auth)",
	PasswordEnv:    []string{"INFLUX_PASSWORD"},
	PasswordUsage:  "v1: password (prefer the INFLUX_PASSWORD environment variable; never printed)",
	RequestTimeout: httpwrite.DefaultRequestTimeout,
}

// flags are load_influx's own flags (loadcli adds the common ones).
func flags() []cli.Flag {
	return append(httpFlags.Flags(),
		&cli.StringFlag{Name: flagAPI, Usage: "InfluxDB API: v1, v2 or v3 (default: detected from the server's /ping)"},
		&cli.StringFlag{Name: flagOrg, EnvVars: []string{"INFLUX_ORG"}, Usage: "v2: organization that owns the bucket"},
		&cli.StringFlag{Name: flagBucket, Usage: "v2: bucket to write into (default: --db-name)"},
		&cli.BoolFlag{Name: flagAcceptPartial, DisableDefaultText: true, Usage: "v3: write a batch's valid lines when some are refused (default: a refused line refuses the batch)"},
		&cli.BoolFlag{Name: flagNoSync, Usage: "v3: acknowledge writes before the write-ahead log is persisted"},
		&cli.StringFlag{Name: flagRP, Usage: "v1: retention policy to write into (default: the database's default)"},
		&cli.StringFlag{Name: flagConsistency, Usage: "v1: write consistency for clusters: any, one, quorum or all (default: the server's)"},
	)
}

// newTarget builds the target from the flags (the database is the runner's
// --db-name); it does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	h := loadcli.HTTP(c)
	tg, err := influx.New(influx.Config{
		Conn:          h.Conn,
		Token:         h.Token,
		Precision:     h.Precision,
		API:           influx.API(c.String(flagAPI)),
		RP:            c.String(flagRP),
		Consistency:   c.String(flagConsistency),
		Org:           c.String(flagOrg),
		Bucket:        c.String(flagBucket),
		AcceptPartial: c.Bool(flagAcceptPartial),
		NoSync:        c.Bool(flagNoSync),
		DBName:        cfg.Prepare.DBName,
	})
	return tg, loadcli.Overrides{}, err
}
