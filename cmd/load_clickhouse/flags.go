package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/clickhouse"
)

// Flag names of load_clickhouse.
const (
	flagHost     = "host"
	flagUser     = loadcli.FlagUser
	flagPassword = loadcli.FlagPassword
	flagDedup    = "dedup"
	flagTimeout  = loadcli.FlagRequestTimeout
	flagDBPath   = "db-path"
	flagChDBDir  = "chdb-dir"
)

// settings maps clickhouse.Config fields to their flags (errors name them).
var settings = map[string]string{
	"Addr": flagHost, "User": flagUser, "Password": flagPassword, "Dedup": flagDedup, "RequestTimeout": flagTimeout,
	"DBName": loadcli.FlagDBName, "DBPath": flagDBPath, "ChDBDir": flagChDBDir,
}

// flags are load_clickhouse's own flags (pkg/loadcli adds the common ones).
func flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagHost, Value: clickhouse.DefaultAddr, EnvVars: []string{"CLICKHOUSE_ADDR"},
			Usage: "host:port of the server's native protocol (scripts/start_clickhouse.sh runs it on 19000)"},
		&cli.StringFlag{Name: flagUser, Value: "default", EnvVars: []string{"CLICKHOUSE_USER"}, Usage: "user"},
		&cli.StringFlag{Name: flagPassword, EnvVars: []string{"CLICKHOUSE_PASSWORD"},
			Usage: "password (prefer the CLICKHOUSE_PASSWORD environment variable; never printed)"},
		&cli.BoolFlag{Name: flagDedup, Value: true,
			Usage: "ReplacingMergeTree tables: a point of the same series and time is stored once (a resumed load sends batches in doubt again); false: MergeTree, every row kept"},
		&cli.DurationFlag{Name: flagTimeout, Value: clickhouse.DefaultRequestTimeout, Usage: "limit on one request; a timed-out write is retried"},
		&cli.StringFlag{Name: flagDBPath,
			Usage: "chDB's data `DIR`: ClickHouse's engine runs inside the loader (no server; --host does not apply), from the chdb wheel of --chdb-dir"},
		&cli.StringFlag{Name: flagChDBDir, EnvVars: []string{"TSLOAD_CHDB"}, DefaultText: "~/.cache/tsload/chdb-3.7.2/site",
			Usage: "the unpacked chdb wheel (scripts/install_chdb.sh); with --db-path"},
	}
}

// newTarget builds the target from the flags (the database is the runner's --db-name); it
// does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	tg, err := clickhouse.New(clickhouse.Config{
		Addr:           c.String(flagHost),
		User:           c.String(flagUser),
		Password:       c.String(flagPassword),
		DBName:         cfg.Prepare.DBName,
		DBPath:         c.String(flagDBPath),
		ChDBDir:        c.String(flagChDBDir),
		Dedup:          c.Bool(flagDedup),
		RequestTimeout: c.Duration(flagTimeout),
		Workers:        cfg.Workers,
		Log:            cfg.Stderr,
	})
	var o loadcli.Overrides
	if c.String(flagDBPath) != "" {
		o.ServerPID = os.Getpid() // the engine runs in this process
	}
	return tg, o, err
}
