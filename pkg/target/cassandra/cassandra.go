// Package cassandra is the Apache Cassandra target (CQL over the native
// protocol, also served by ScyllaDB): it creates a keyspace and one table
// per measurement, writes each batch as unlogged batches of INSERTs, one per
// partition, and verifies by counting and fingerprinting the tables token
// range by token range.
//
// Layout. A table is laid out as time-series users lay it out in CQL:
//
//	CREATE TABLE ks."cpu" ("hostname" text, ..., "bucket" timestamp, "time" timestamp,
//	    "usage_user" double, ..., PRIMARY KEY (("hostname", ..., "bucket"), "time"))
//
// The partition key is the series (every tag) and a time bucket (the start
// of the Config.Bucket the row's time falls in, one day by default), and
// time is the clustering column. A series' rows of one bucket are one
// partition stored in time order, so a query of one series over a time
// range reads a few partitions sequentially; the bucket bounds a partition's
// size (a day of 10-second rows is 8,640 rows) where a partition per series
// would grow without end. A tag a row lacks is stored as "" (a partition
// key column cannot be null), so a table's tags are fixed when it is
// created: a line with a tag the table does not have is refused, a new
// field is added with ALTER TABLE.
//
// Writes. A batch is decoded into rows, grouped by partition, and each
// partition's rows go in one UNLOGGED BATCH (one mutation on the replica,
// no batch log), Config.Concurrency partitions at a time. An INSERT is an
// upsert: a row with the series and time of one the table holds replaces
// it, so a re-sent batch stores nothing twice (load.Hooks.Overwrites, and a
// resumed load re-sends batches in doubt). A field a row lacks is left
// unset (no tombstone). Values CQL cannot store as sent are refused before
// anything is sent, with the record named: a timestamp with a
// sub-millisecond part (CQL's timestamp holds milliseconds), an unsigned
// integer above 2^63-1 (bigint), text that is not UTF-8.
//
// What an answer means:
//
//	success                                   written (every partition of the batch)
//	write timeout, unavailable, overloaded,   retryable: the batch is sent again (an upsert
//	bootstrapping, no connection, network     may have been written: sending it again stores
//	error, client timeout                     nothing twice)
//	invalid request, syntax, unauthorized,    fatal: the batch is not counted (partitions sent
//	configuration, bad credentials, any       before the refusal may hold its rows)
//	other server error
//
// Counting. count(*) over a whole table is one scan that times out on a
// large table; Count and Content split the Murmur3 token ring into ranges
// and aggregate each range (WHERE token(partition key) > a AND <= b),
// splitting a range in two when the server times out: exact, and each
// request bounded. Distinct series are the distinct tag sets of the
// partition keys (SELECT DISTINCT per range, deduplicated here).
//
// Footprint is system_views.disk_usage: the live SSTable bytes of the
// table as the server reports them, in whole MiB; rows still in memtables
// are not on disk, so the figure is a lower bound until the server flushes
// (nodetool flush; CQL cannot ask for it).
//
// Queries: the rows of a window, kept by tags and a threshold, in CQL;
// CQL cannot group by time buckets across partitions, so the aggregates
// and the newest rows are declared unsupported (query.go).
package cassandra

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// Defaults of Config (load_cassandra's flag defaults).
const (
	DefaultAddr           = "127.0.0.1:9042"
	DefaultConsistency    = "LOCAL_QUORUM"
	DefaultBucket         = 24 * time.Hour
	DefaultConcurrency    = 8
	DefaultRequestTimeout = 30 * time.Second
)

// BucketColumn is the partition key column that holds the time bucket.
const BucketColumn = "bucket"

// Config is the target's configuration; a zero field takes its default.
type Config struct {
	// Addr is the host:port of the node to connect to. The driver talks to
	// this address only (no discovery of the other nodes), so it may be a
	// proxy or a load balancer in front of a cluster.
	Addr string
	// Keyspace is the keyspace loaded (PrepareOptions.DBName overrides it).
	Keyspace string
	// ReplicationFactor of a keyspace Prepare creates (SimpleStrategy); 0: 1.
	ReplicationFactor int
	// Consistency is the consistency level of writes and reads (ONE,
	// LOCAL_QUORUM, QUORUM, ALL, ...).
	Consistency string
	// Bucket is the time bucket of the partition key.
	Bucket time.Duration
	// Concurrency is the partitions of a batch written at once by one writer.
	Concurrency int
	// RequestTimeout bounds each request.
	RequestTimeout time.Duration
	// User and Password authenticate (PasswordAuthenticator) when User is set.
	User, Password string
	// Log receives notes; nil discards them.
	Log io.Writer
}

// Target is a Cassandra keyspace.
type Target struct {
	cfg  Config
	cons gocql.Consistency

	mu     sync.Mutex
	sess   *gocql.Session
	tables map[string]*table // by name, as found in the keyspace
}

var _ load.Target = (*Target)(nil)

// New checks cfg and returns the target. It does not connect.
func New(cfg Config) (*Target, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Consistency == "" {
		cfg.Consistency = DefaultConsistency
	}
	if cfg.Bucket == 0 {
		cfg.Bucket = DefaultBucket
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.ReplicationFactor == 0 {
		cfg.ReplicationFactor = 1
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	cons, err := gocql.ParseConsistencyWrapper(strings.ToUpper(cfg.Consistency))
	switch {
	case err != nil:
		return nil, load.Settingf("unknown {Consistency} %q (want ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM or LOCAL_ONE)", cfg.Consistency)
	case cons == gocql.Any:
		return nil, load.Settingf("{Consistency} ANY is for writes only: the counts of verification could not be read at it")
	case cfg.Bucket < time.Millisecond || cfg.Bucket%time.Millisecond != 0:
		return nil, load.Settingf("invalid {Bucket} %s (want whole milliseconds, such as 1h or 24h)", cfg.Bucket)
	case cfg.Concurrency < 0:
		return nil, load.Settingf("invalid {Concurrency} %d (want 1 or more)", cfg.Concurrency)
	case cfg.ReplicationFactor < 0:
		return nil, load.Settingf("invalid {ReplicationFactor} %d", cfg.ReplicationFactor)
	case cfg.RequestTimeout < 0:
		return nil, load.Settingf("invalid {RequestTimeout} %s", cfg.RequestTimeout)
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return nil, load.Settingf("invalid {Addr} %q (want host:port): %v", cfg.Addr, err)
	}
	return &Target{cfg: cfg, cons: cons, tables: map[string]*table{}}, nil
}

// session connects once; every writer shares the session (the driver's
// pool of connections).
func (t *Target) session() (*gocql.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		return t.sess, nil
	}
	host, port, _ := net.SplitHostPort(t.cfg.Addr)
	c := gocql.NewCluster(host)
	c.Port, _ = strconv.Atoi(port)
	c.DisableInitialHostLookup = true
	c.Consistency = t.cons
	c.Timeout = t.cfg.RequestTimeout
	c.ConnectTimeout = min(t.cfg.RequestTimeout, 10*time.Second)
	c.NumConns = 2
	// The runner owns every retry (pkg/retry): one attempt per request.
	c.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
	if t.cfg.User != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: t.cfg.User, Password: t.cfg.Password}
	}
	s, err := c.CreateSession()
	if err != nil {
		return nil, load.Retryable(fmt.Errorf("cassandra: connect to %s: %w", t.cfg.Addr, err))
	}
	t.sess = s
	return s, nil
}

// drop closes s, a session that lost every connection, so that the next
// request connects anew: the driver tries a node it lost again only on its
// own schedule (ReconnectInterval), which proved slower than a load's
// retries when a proxy in front of the node cut every connection.
func (t *Target) drop(s *gocql.Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess == s {
		t.sess = nil
		go s.Close() // requests in flight on it end with ErrSessionClosed: retried
	}
}

// Close closes the session.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		t.sess.Close()
		t.sess = nil
	}
	return nil
}

// Takes are the input formats the target loads itself, its Accepts and
// its command's --format help made of them (loadcli.Spec.Takes; the
// runner writes CSV as lines for it).
var Takes = []format.Format{format.ILP}

// Accepts takes line protocol: the runner writes CSV (and what it reads as
// CSV) as lines, with their names and types checked on the way, so a CSV
// time column and its tags land in the layout as a line's would.
func (t *Target) Accepts(f format.Format) error {
	if !slices.Contains(Takes, f) {
		return fmt.Errorf("the Cassandra target takes line protocol, not %s (CSV is written as lines)", f)
	}
	return nil
}

// Ping checks that the node accepts connections at Addr.
func (t *Target) Ping(ctx context.Context) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", t.cfg.Addr)
	if err != nil {
		return fmt.Errorf("cassandra: no server at %s: %w", t.cfg.Addr, err)
	}
	return c.Close()
}

// ServerAddr is Addr.
func (t *Target) ServerAddr() string { return t.cfg.Addr }

// ServerVersion is system.local's release_version.
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	s, err := t.session()
	if err != nil {
		return "", err
	}
	var v string
	if err := s.Query("SELECT release_version FROM system.local").ScanContext(ctx, &v); err != nil {
		return "", err
	}
	return "Cassandra " + v, nil
}

// Describe says where the load went and how the tables are laid out.
func (t *Target) Describe() *results.Setup {
	return &results.Setup{
		URL:      t.cfg.Addr,
		Database: t.cfg.Keyspace,
		Settings: map[string]any{
			"consistency":        t.cons.String(),
			"partition-bucket":   t.cfg.Bucket.String(),
			"replication-factor": t.cfg.ReplicationFactor,
			"layout":             "PRIMARY KEY ((tags..., bucket), time)",
			"dedup":              true,
		},
	}
}

// InDoubt: an INSERT replaces the row of the same key, so a resumed load
// sends the batches in doubt again.
func (t *Target) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return load.ResendInDoubt, nil
}

// quote quotes a CQL identifier (names keep their case).
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
