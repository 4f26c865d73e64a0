package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/timescale"
)

// Flag names of load_timescale.
const (
	flagPostgres          = "postgres"
	flagHost              = "host"
	flagPort              = "port"
	flagUser              = loadcli.FlagUser
	flagPassword          = loadcli.FlagPassword
	flagSSLMode           = "sslmode"
	flagMethod            = "method"
	flagCommit            = "commit"
	flagUseHypertable     = "use-hypertable"
	flagChunkTime         = "chunk-time"
	flagPartitions        = "partitions"
	flagColumnstore       = "columnstore"
	flagSegmentBy         = "segment-by"
	flagOrderBy           = "order-by"
	flagCompressAfterLoad = "compress-after-load"
	flagDirectCompress    = "direct-compress"
	flagUnlogged          = "unlogged"
	flagCreateIndexes     = "create-indexes"
	flagRequestTimeout    = loadcli.FlagRequestTimeout
)

// settings maps timescale.Config fields to their flags (errors name them).
var settings = map[string]string{
	"URL": flagPostgres, "Host": flagHost, "Port": flagPort, "User": flagUser, "Password": flagPassword,
	"SSLMode": flagSSLMode, "Method": flagMethod, "Commit": flagCommit, "UseHypertable": flagUseHypertable,
	"ChunkTime": flagChunkTime, "Partitions": flagPartitions, "Columnstore": flagColumnstore,
	"SegmentBy": flagSegmentBy, "OrderBy": flagOrderBy, "CompressAfter": flagCompressAfterLoad,
	"DirectCompress": flagDirectCompress, "Unlogged": flagUnlogged, "CreateIndexes": flagCreateIndexes,
	"RequestTimeout": flagRequestTimeout,
}

// timescaleFlags are load_timescale's own flags (the runner's common flags come from
// pkg/loadcli).
func timescaleFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagPostgres, Usage: "connection `URL` or key=value DSN (replaces --host/--port/--user; its database is the maintenance database, default postgres)"},
		&cli.StringFlag{Name: flagHost, Value: "127.0.0.1", Usage: "server host"},
		&cli.IntFlag{Name: flagPort, Value: 5432, Usage: "server port"},
		&cli.StringFlag{Name: flagUser, Value: "postgres", Usage: "user name"},
		&cli.StringFlag{Name: flagPassword, EnvVars: []string{"PGPASSWORD"}, Usage: "password (prefer the PGPASSWORD environment variable; never printed)"},
		&cli.StringFlag{Name: flagSSLMode, Usage: "TLS: disable, allow, prefer, require, verify-ca or verify-full (default: the URL's or PGSSLMODE; else prefer on loopback and verify-full for any other host)"},
		&cli.StringFlag{Name: flagMethod, Value: string(timescale.MethodAuto), Usage: "auto, copy-binary (pgcopy, ILP), copy-csv (csv), insert-multi or insert; auto = copy-binary for pgcopy and ILP, copy-csv for csv"},
		&cli.StringFlag{Name: flagCommit, Value: string(timescale.CommitBatch), Usage: "insert methods: batch (one transaction per batch) or row (autocommit per statement)"},
		&cli.StringFlag{Name: flagUseHypertable, Value: string(timescale.HypertableAuto), Usage: "auto (when the timescaledb extension is available), true or false"},
		&cli.DurationFlag{Name: flagChunkTime, Value: 12 * time.Hour, Usage: "hypertable chunk interval (by_range on time)"},
		&cli.IntFlag{Name: flagPartitions, Usage: "hypertables: also partition by_hash on the tag that identifies a series (hostname, name, location_id) into `N` partitions (0: time only)"},
		&cli.BoolFlag{Name: flagColumnstore, Usage: "hypertables: enable TimescaleDB's columnstore (compression) with --segment-by and --order-by"},
		&cli.StringFlag{Name: flagSegmentBy, Usage: "columnstore segmentby `COLUMNS` (default: the series tag of each table; none: no segmenting)"},
		&cli.StringFlag{Name: flagOrderBy, Value: "time DESC", Usage: "columnstore orderby"},
		&cli.BoolFlag{Name: flagCompressAfterLoad, Usage: "convert every chunk to the columnstore after the load; its time and the sizes before and after go to the summary and results file (implies --columnstore)"},
		&cli.BoolFlag{Name: flagDirectCompress, Usage: "compress rows while COPY writes them (timescaledb.enable_direct_compress_copy, TimescaleDB 2.21+; copy methods; implies --columnstore); pays off only with many rows per series in each batch (README)"},
		&cli.BoolFlag{Name: flagUnlogged, Usage: "create UNLOGGED plain tables (not crash-safe; no hypertables)"},
		&cli.StringFlag{Name: flagCreateIndexes, Value: string(timescale.IndexesNone), Usage: "indexes on (tags..., time DESC): none, before or after the load"},
		&cli.DurationFlag{Name: flagRequestTimeout, Value: timescale.DefaultRequestTimeout, Usage: "limit on writing one batch; a batch without an answer in time is retried on a new connection once the server says its transaction did not commit"},
	}
}

// configFromCLI maps the flags of timescaleFlags to a Config. DBName is left for the
// caller (the runner's --db-name).
func configFromCLI(c *cli.Context) timescale.Config {
	return timescale.Config{
		URL:            c.String(flagPostgres),
		Host:           c.String(flagHost),
		Port:           c.Int(flagPort),
		User:           c.String(flagUser),
		Password:       c.String(flagPassword),
		SSLMode:        c.String(flagSSLMode),
		Method:         timescale.Method(c.String(flagMethod)),
		Commit:         timescale.Commit(c.String(flagCommit)),
		UseHypertable:  timescale.Hypertable(c.String(flagUseHypertable)),
		ChunkTime:      c.Duration(flagChunkTime),
		Partitions:     c.Int(flagPartitions),
		Columnstore:    c.Bool(flagColumnstore),
		SegmentBy:      c.String(flagSegmentBy),
		OrderBy:        c.String(flagOrderBy),
		CompressAfter:  c.Bool(flagCompressAfterLoad),
		DirectCompress: c.Bool(flagDirectCompress),
		Unlogged:       c.Bool(flagUnlogged),
		CreateIndexes:  timescale.Indexes(c.String(flagCreateIndexes)),
		RequestTimeout: c.Duration(flagRequestTimeout),
	}
}

// newTarget builds the target from the flags; it does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	tc := configFromCLI(c)
	tc.DBName = cfg.Prepare.DBName
	tc.Log = cfg.Stderr
	tg, err := timescale.New(tc)
	return tg, loadcli.Overrides{}, err
}
