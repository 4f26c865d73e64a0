package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/timescale"
)

// timescaleFlags are load_timescale's own flags (the runner's common flags come from
// pkg/loadcli).
func timescaleFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "postgres", Usage: "connection `URL` or key=value DSN (replaces --host/--port/--user; its database is the maintenance database, default postgres)"},
		&cli.StringFlag{Name: "host", Value: "127.0.0.1", Usage: "server host"},
		&cli.IntFlag{Name: "port", Value: 5432, Usage: "server port"},
		&cli.StringFlag{Name: "user", Value: "postgres", Usage: "user name"},
		&cli.StringFlag{Name: "password", EnvVars: []string{"PGPASSWORD"}, Usage: "password (prefer the PGPASSWORD environment variable; never printed)"},
		&cli.StringFlag{Name: "sslmode", Usage: "TLS: disable, allow, prefer, require, verify-ca or verify-full (default: the URL's or PGSSLMODE; else prefer on loopback and verify-full for any other host)"},
		&cli.StringFlag{Name: "method", Value: string(timescale.MethodAuto), Usage: "auto, copy-binary (pgcopy, ILP), copy-csv (csv), insert-multi or insert; auto = copy-binary for pgcopy and ILP, copy-csv for csv"},
		&cli.StringFlag{Name: "commit", Value: string(timescale.CommitBatch), Usage: "insert methods: batch (one transaction per batch) or row (autocommit per statement)"},
		&cli.StringFlag{Name: "use-hypertable", Value: "auto", Usage: "auto (when the timescaledb extension is available), true or false"},
		&cli.DurationFlag{Name: "chunk-time", Value: 12 * time.Hour, Usage: "hypertable chunk interval (by_range on time)"},
		&cli.IntFlag{Name: "partitions", Usage: "hypertables: also partition by_hash on the tag that identifies a series (hostname, name, location_id) into `N` partitions (0: time only)"},
		&cli.BoolFlag{Name: "columnstore", Usage: "hypertables: enable TimescaleDB's columnstore (compression) with --segment-by and --order-by"},
		&cli.StringFlag{Name: "segment-by", Usage: "columnstore segmentby `COLUMNS` (default: the series tag of each table; none: no segmenting)"},
		&cli.StringFlag{Name: "order-by", Value: "time DESC", Usage: "columnstore orderby"},
		&cli.BoolFlag{Name: "compress-after-load", Usage: "convert every chunk to the columnstore after the load; its time and the sizes before and after go to the summary and results file (implies --columnstore)"},
		&cli.BoolFlag{Name: "direct-compress", Usage: "compress rows while COPY writes them (timescaledb.enable_direct_compress_copy, TimescaleDB 2.21+; copy methods; implies --columnstore); pays off only with many rows per series in each batch (README)"},
		&cli.BoolFlag{Name: "unlogged", Usage: "create UNLOGGED plain tables (not crash-safe; no hypertables)"},
		&cli.StringFlag{Name: "create-indexes", Value: "none", Usage: "indexes on (tags..., time DESC): none, before or after the load"},
		&cli.DurationFlag{Name: "request-timeout", Value: timescale.DefaultRequestTimeout, Usage: "limit on writing one batch (0: none); a batch without an answer in time is retried on a new connection once the server says its transaction did not commit"},
	}
}

// configFromCLI maps the flags of timescaleFlags to a Config. DBName is left for the
// caller (the runner's --db-name).
func configFromCLI(c *cli.Context) timescale.Config {
	return timescale.Config{
		URL:            c.String("postgres"),
		Host:           c.String("host"),
		Port:           c.Int("port"),
		User:           c.String("user"),
		Password:       c.String("password"),
		SSLMode:        c.String("sslmode"),
		Method:         timescale.Method(c.String("method")),
		Commit:         timescale.Commit(c.String("commit")),
		UseHypertable:  c.String("use-hypertable"),
		ChunkTime:      c.Duration("chunk-time"),
		Partitions:     c.Int("partitions"),
		Columnstore:    c.Bool("columnstore"),
		SegmentBy:      c.String("segment-by"),
		OrderBy:        c.String("order-by"),
		CompressAfter:  c.Bool("compress-after-load"),
		DirectCompress: c.Bool("direct-compress"),
		Unlogged:       c.Bool("unlogged"),
		CreateIndexes:  c.String("create-indexes"),
		RequestTimeout: c.Duration("request-timeout"),
	}
}

// newTarget builds the target from the flags; it does not connect.
func newTarget(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	tc := configFromCLI(c)
	tc.DBName = cfg.Prepare.DBName
	tc.Log = cfg.Stderr
	return timescale.New(tc)
}
