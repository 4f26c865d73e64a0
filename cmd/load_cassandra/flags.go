package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/cassandra"
)

// Flag names of load_cassandra.
const (
	flagHost        = "host"
	flagConsistency = "consistency"
	flagBucket      = "partition-bucket"
	flagConcurrency = "concurrency"
	flagRF          = "replication-factor"
	flagTimeout     = "request-timeout"
	flagUser        = "user"
	flagPassword    = "password"
)

// settings maps cassandra.Config fields to their flags (errors name them).
var settings = map[string]string{
	"Addr": flagHost, "Keyspace": loadcli.FlagDBName, "Consistency": flagConsistency, "Bucket": flagBucket,
	"Concurrency": flagConcurrency, "ReplicationFactor": flagRF, "RequestTimeout": flagTimeout,
	"User": flagUser, "Password": flagPassword,
}

// cassandraFlags are load_cassandra's own flags (pkg/loadcli adds the common ones).
func cassandraFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagHost, Value: cassandra.DefaultAddr, EnvVars: []string{"TSLOAD_CASSANDRA"},
			Usage: "host:port of the node to write to (CQL native protocol; the only address used: no discovery of other nodes)"},
		&cli.StringFlag{Name: flagConsistency, Value: cassandra.DefaultConsistency,
			Usage: "consistency level of writes and verification: ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE"},
		&cli.DurationFlag{Name: flagBucket, Value: cassandra.DefaultBucket,
			Usage: "time bucket of the partition key: a series' rows of one bucket are one partition"},
		&cli.IntFlag{Name: flagConcurrency, Value: cassandra.DefaultConcurrency,
			Usage: "partitions of a batch each worker writes at once (one unlogged batch each)"},
		&cli.IntFlag{Name: flagRF, Value: 1, Usage: "replication_factor of a keyspace the loader creates (SimpleStrategy)"},
		&cli.DurationFlag{Name: flagTimeout, Value: cassandra.DefaultRequestTimeout, Usage: "timeout of one request"},
		&cli.StringFlag{Name: flagUser, EnvVars: []string{"CASSANDRA_USER"}, Usage: "user (PasswordAuthenticator; default: no authentication)"},
		&cli.StringFlag{Name: flagPassword, EnvVars: []string{"CASSANDRA_PASSWORD"},
			Usage: "password (prefer the CASSANDRA_PASSWORD environment variable; never printed)"},
	}
}

// newTarget builds the target from the flags (the keyspace is the runner's
// --db-name); it does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	tg, err := cassandra.New(cassandra.Config{
		Addr:              c.String(flagHost),
		Keyspace:          cfg.Prepare.DBName,
		Consistency:       c.String(flagConsistency),
		Bucket:            c.Duration(flagBucket),
		Concurrency:       c.Int(flagConcurrency),
		ReplicationFactor: c.Int(flagRF),
		RequestTimeout:    c.Duration(flagTimeout),
		User:              c.String(flagUser),
		Password:          c.String(flagPassword),
		Log:               cfg.Stderr,
	})
	return tg, loadcli.Overrides{}, err
}
