package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// flags are load_influx's own flags (loadcli adds the common ones).
func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "urls", Value: "http://127.0.0.1:8086", EnvVars: []string{"TSLOAD_INFLUX_URL"},
			Usage: "comma-separated InfluxDB base URLs; workers are spread over them round-robin"},
		&cli.StringFlag{Name: "api", Usage: "InfluxDB API: v1, v2 or v3 (default: detected from the server's /ping)"},
		&cli.StringFlag{Name: "precision", Value: "n", Usage: "timestamp precision of the input: n, u, ms, s (and m or h on v1)"},
		&cli.BoolFlag{Name: "gzip", Value: true, Usage: "gzip each request body"},
		&cli.IntFlag{Name: "gzip-level", Value: 1, Usage: "gzip level 1 (fastest) to 9 (smallest)"},
		&cli.StringFlag{Name: "token", EnvVars: []string{"INFLUX_TOKEN"}, Usage: "API token, sent as Authorization: Token (v2, v3; prefer the INFLUX_TOKEN environment variable; never printed)"},
		&cli.StringFlag{Name: "org", EnvVars: []string{"INFLUX_ORG"}, Usage: "v2: organization that owns the bucket"},
		&cli.StringFlag{Name: "bucket", Usage: "v2: bucket to write into (default: --db-name)"},
		&cli.BoolFlag{Name: "accept-partial", DisableDefaultText: true, Usage: "v3: write a batch's valid lines when some are refused (default: a refused line refuses the batch)"},
		&cli.BoolFlag{Name: "no-sync", Usage: "v3: acknowledge writes before the write-ahead log is persisted"},
		&cli.StringFlag{Name: "rp", Usage: "v1: retention policy to write into (default: the database's default)"},
		&cli.StringFlag{Name: "consistency", Usage: "v1: write consistency for clusters: any, one, quorum or all (default: the server's)"},
		&cli.StringFlag{Name: "user", EnvVars: []string{"INFLUX_USERNAME"}, Usage: "v1: user name (Basic auth)"},
		&cli.StringFlag{Name: "password", EnvVars: []string{"INFLUX_PASSWORD"}, Usage: "v1: password (prefer the INFLUX_PASSWORD environment variable; never printed)"},
		&cli.BoolFlag{Name: "insecure-skip-verify", Usage: "do not verify the server's TLS certificate (https URLs)"},
		&cli.DurationFlag{Name: "request-timeout", Value: 60 * time.Second, Usage: "limit on one HTTP request; a timed-out write is retried"},
	}
}

// configFromCLI reads flags() from c (DBName is left for the runner's --db-name).
func configFromCLI(c *cli.Context) (influx.Config, error) {
	cfg := influx.Config{
		URLs:               httpwrite.SplitURLs(c.String("urls")),
		API:                c.String("api"),
		RP:                 c.String("rp"),
		Consistency:        c.String("consistency"),
		Precision:          c.String("precision"),
		Gzip:               c.Bool("gzip"),
		GzipLevel:          c.Int("gzip-level"),
		User:               c.String("user"),
		Password:           c.String("password"),
		Token:              c.String("token"),
		Org:                c.String("org"),
		Bucket:             c.String("bucket"),
		AcceptPartial:      c.Bool("accept-partial"),
		NoSync:             c.Bool("no-sync"),
		InsecureSkipVerify: c.Bool("insecure-skip-verify"),
		RequestTimeout:     c.Duration("request-timeout"),
	}
	if c.IsSet("db-name") {
		cfg.DBName = c.String("db-name")
	}
	return cfg, cfg.Validate()
}

// newTarget builds the target from the flags; it does not connect.
func newTarget(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	ic, err := configFromCLI(c)
	if err != nil {
		return nil, err
	}
	ic.DBName = cfg.Prepare.DBName
	return influx.New(ic)
}
