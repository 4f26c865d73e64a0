package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/cnosdb"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Flag names of load_cnosdb (the HTTP ones are loadcli's).
const (
	flagTenant        = "tenant"
	flagTTL           = "db-ttl"
	flagShards        = "db-shards"
	flagVnodeDuration = "db-vnode-duration"
	flagReplica       = "db-replica"
)

// settings maps cnosdb.Config fields to their flags (errors name them).
var settings = map[string]string{
	"Tenant": flagTenant, "TTL": flagTTL, "Shards": flagShards, "VnodeDuration": flagVnodeDuration, "Replica": flagReplica,
}

// httpFlags are load_cnosdb's HTTP flags.
var httpFlags = loadcli.HTTPFlagSet{
	URLs:           "http://127.0.0.1:8902",
	URLsUsage:      "comma-separated CnosDB base URLs; workers are spread over them round-robin",
	Precision:      "ns",
	PrecisionUsage: "timestamp precision of the input: ms, us or ns",
	User:           "root",
	UserEnv:        []string{"CNOSDB_USER"},
	UserUsage:      "user (Basic auth; CnosDB requires the header even with auth off)",
	PasswordEnv:    []string{"CNOSDB_PASSWORD"},
	PasswordUsage:  "password (prefer the CNOSDB_PASSWORD environment variable; never printed)",
	NoToken:        true,
	RequestTimeout: httpwrite.DefaultRequestTimeout,
}

// cnosdbFlags are load_cnosdb's own flags (pkg/loadcli adds the common ones).
func cnosdbFlags() []cli.Flag {
	return append(httpFlags.Flags(),
		&cli.StringFlag{Name: flagTenant, Value: "cnosdb", Usage: "tenant"},
		&cli.StringFlag{Name: flagTTL, Usage: "CREATE DATABASE ... WITH TTL (e.g. 3650d, INF; default: the server's)"},
		&cli.IntFlag{Name: flagShards, DefaultText: "the server's", Usage: "CREATE DATABASE ... WITH SHARD n"},
		&cli.StringFlag{Name: flagVnodeDuration, Usage: "CREATE DATABASE ... WITH VNODE_DURATION (e.g. 1d; default: the server's)"},
		&cli.IntFlag{Name: flagReplica, DefaultText: "the server's", Usage: "CREATE DATABASE ... WITH REPLICA n"},
	)
}

// newTarget builds the target from the flags (the database is the runner's
// --db-name); it does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	h := loadcli.HTTP(c)
	tg, err := cnosdb.New(cnosdb.Config{
		Conn:          h.Conn,
		Precision:     h.Precision,
		Tenant:        c.String(flagTenant),
		TTL:           c.String(flagTTL),
		Shards:        c.Int(flagShards),
		VnodeDuration: c.String(flagVnodeDuration),
		Replica:       c.Int(flagReplica),
		DBName:        cfg.Prepare.DBName,
		Log:           cfg.Stderr,
	})
	return tg, loadcli.Overrides{}, err
}
