package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/cnosdb"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// cnosdbFlags are load_cnosdb's own flags (pkg/loadcli adds the common ones).
func cnosdbFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "urls", Value: "http://127.0.0.1:8902", Usage: "comma-separated CnosDB base URLs; workers are spread over them round-robin"},
		&cli.StringFlag{Name: "tenant", Value: "cnosdb", Usage: "tenant"},
		&cli.StringFlag{Name: "user", Value: "root", EnvVars: []string{"CNOSDB_USER"}, Usage: "user (Basic auth; CnosDB requires the header even with auth off)"},
		&cli.StringFlag{Name: "password", EnvVars: []string{"CNOSDB_PASSWORD"}, Usage: "password (prefer the CNOSDB_PASSWORD environment variable; never printed)"},
		&cli.StringFlag{Name: "precision", Value: "ns", Usage: "timestamp precision of the input: ms, us or ns"},
		&cli.BoolFlag{Name: "gzip", Usage: "gzip each request body"},
		&cli.IntFlag{Name: "gzip-level", Value: 1, Usage: "gzip level 1 (fastest) to 9 (smallest)"},
		&cli.StringFlag{Name: "db-ttl", Usage: "CREATE DATABASE ... WITH TTL (e.g. 3650d, INF; default: the server's)"},
		&cli.IntFlag{Name: "db-shards", DefaultText: "the server's", Usage: "CREATE DATABASE ... WITH SHARD n"},
		&cli.StringFlag{Name: "db-vnode-duration", Usage: "CREATE DATABASE ... WITH VNODE_DURATION (e.g. 1d; default: the server's)"},
		&cli.IntFlag{Name: "db-replica", DefaultText: "the server's", Usage: "CREATE DATABASE ... WITH REPLICA n"},
		&cli.BoolFlag{Name: "insecure-skip-verify", Usage: "do not verify the server's TLS certificate (https URLs)"},
		&cli.DurationFlag{Name: "request-timeout", Value: 60 * time.Second, Usage: "limit on one HTTP request; a timed-out write is retried"},
	}
}

// configFromCLI reads cnosdbFlags() from c (DBName is left for the runner's --db-name).
func configFromCLI(c *cli.Context) (cnosdb.Config, error) {
	cfg := cnosdb.Config{
		URLs:               httpwrite.SplitURLs(c.String("urls")),
		Tenant:             c.String("tenant"),
		User:               c.String("user"),
		Password:           c.String("password"),
		Precision:          c.String("precision"),
		Gzip:               c.Bool("gzip"),
		GzipLevel:          c.Int("gzip-level"),
		TTL:                c.String("db-ttl"),
		Shards:             c.Int("db-shards"),
		VnodeDuration:      c.String("db-vnode-duration"),
		Replica:            c.Int("db-replica"),
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
	cc, err := configFromCLI(c)
	if err != nil {
		return nil, err
	}
	cc.DBName = cfg.Prepare.DBName
	cc.Warn = cfg.Stderr
	return cnosdb.New(cc)
}
