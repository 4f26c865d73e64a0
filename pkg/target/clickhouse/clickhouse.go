// Package clickhouse is the ClickHouse target of cmd/load_clickhouse: batches of line
// protocol, CSV or pgcopy (Parquet arrives as pgcopy) are decoded into typed rows on the
// worker and sent with ClickHouse's native protocol (github.com/ClickHouse/clickhouse-go/v2:
// one INSERT of named columns per table of a batch, PrepareBatch/Append/Send), into a
// database of --db-name.
//
// Tables. Each table is created as
//
//	CREATE TABLE db.t (time DateTime64(9, 'UTC'), host String, ..., usage_user Nullable(Float64), ...)
//	ENGINE = ReplacingMergeTree ORDER BY (host, ..., time)
//
// ordered by the tags and then the time: a MergeTree sorts each part by its ORDER BY, so the
// rows of one series lie together and in time order, which is what queries of a series over
// a time range read (the primary index skips the rest) and what compresses a series' values
// best. Tags are String, never Nullable (a sorting key cannot be Nullable): a row without a
// tag holds ”. Fields are Nullable, since a row need not carry every field. With Dedup
// (the default) the engine is ReplacingMergeTree, whose key is the ORDER BY: a point of the
// same series and time replaces one the table holds, as in InfluxDB, so that a batch sent
// again (a retry, a resumed load) is stored once; counts and content read the table FINAL.
// Without Dedup it is a plain MergeTree, which keeps every row sent.
//
// Time. DateTime64(9) keeps nanoseconds; ClickHouse before 20.1 (Debian's 18.16) has only
// DateTime, whole seconds from 1970 to 2105: there a time with a fraction of a second, or
// out of that range, is refused with an error naming the record, never truncated.
//
// What an answer means. A server exception (a bad value, an unknown column) fails the batch
// for good; TOO_MANY_PARTS, memory limits and a lost or timed-out connection are retryable.
// A batch of several tables is several INSERTs: when one fails after another was written,
// a re-send is safe only with Dedup; without it the error is fatal and says what was written.
package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// DefaultAddr is where scripts/start_clickhouse.sh runs the server's native protocol.
const DefaultAddr = "127.0.0.1:19000"

// Config configures the target.
type Config struct {
	Addr string // host:port of the native protocol
	// DBPath, when set, is chDB's data directory: the engine runs inside the loader (chdb.go)
	// and Addr, User, Password and RequestTimeout do not apply.
	DBPath    string
	ChDBDir   string // the unpacked chdb wheel (default DefaultChDBDir())
	LibPython string // default DefaultLibPython
	User      string // "" is default
	Password  string
	DBName    string
	// Dedup: ReplacingMergeTree tables (a point of the same series and time stored once);
	// false: MergeTree, every row kept.
	Dedup bool
	// RequestTimeout bounds each request (0: DefaultRequestTimeout).
	RequestTimeout time.Duration
	Workers        int
	Log            io.Writer
}

var reDBName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Target is a ClickHouse server as a load.Target.
type Target struct {
	cfg Config

	mu       sync.Mutex
	be       backend
	version  string
	dt64     bool                     // the server has DateTime64
	tables   map[string]*table        // by name, as created or found
	known    map[string]*schema.Table // opts.Tables
	dropped  bool
	opts     load.PrepareOptions
	prepared bool
}

// DefaultRequestTimeout bounds each request when Config.RequestTimeout is
// zero, in a library Config as in load_clickhouse.
const DefaultRequestTimeout = 60 * time.Second

// New returns the target; it does not connect.
func New(cfg Config) (*Target, error) {
	if cfg.DBPath != "" {
		cfg.Addr = ""
		if cfg.ChDBDir == "" {
			cfg.ChDBDir = DefaultChDBDir()
		}
		if cfg.LibPython == "" {
			cfg.LibPython = DefaultLibPython
		}
	} else if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); cfg.DBPath == "" && err != nil {
		return nil, load.Settingf("invalid {Addr} %q (want host:port): %v", cfg.Addr, err)
	}
	if cfg.User == "" {
		cfg.User = "default"
	}
	if !reDBName.MatchString(cfg.DBName) {
		return nil, load.Settingf("invalid {DBName} %q (ClickHouse: letters, digits and _, not first a digit)", cfg.DBName)
	}
	if cfg.RequestTimeout < 0 {
		return nil, load.Settingf("invalid {RequestTimeout} %s", cfg.RequestTimeout)
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	return &Target{cfg: cfg, tables: map[string]*table{}, known: map[string]*schema.Table{}}, nil
}

// Accepts takes ILP, CSV and pgcopy (Parquet arrives as pgcopy, TSBS's files as CSV).
func (t *Target) Accepts(f format.Format) error {
	switch f {
	case format.ILP, format.CSV, format.PGCopy, format.Unknown:
		return nil
	}
	return fmt.Errorf("clickhouse: cannot load %s input", f)
}

// open connects once (chDB: opens its data path).
func (t *Target) open(ctx context.Context) (backend, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.openLocked(ctx)
}

func (t *Target) openLocked(context.Context) (backend, error) {
	if t.be != nil {
		return t.be, nil
	}
	var be backend
	var err error
	if t.cfg.DBPath != "" {
		be, err = openChDB(t.cfg)
	} else {
		be, err = openNative(t.cfg)
	}
	if err != nil {
		return nil, err
	}
	t.be = be
	return be, nil
}

// Ping checks once that the server answers.
func (t *Target) Ping(ctx context.Context) error {
	conn, err := t.open(ctx)
	if err != nil {
		return err
	}
	if err := conn.ping(ctx); err != nil {
		return fmt.Errorf("clickhouse: %s: %w", t.where(), err)
	}
	return nil
}

// ServerAddr is the native protocol's host:port; "" for chDB, which runs inside the loader.
func (t *Target) ServerAddr() string { return t.cfg.Addr }

// where names the server or data path in messages.
func (t *Target) where() string {
	if t.cfg.DBPath != "" {
		return "chDB " + t.cfg.DBPath
	}
	return t.cfg.Addr
}

// ServerVersion is the server's version (read by Prepare).
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.version == "" {
		return "", errors.New("clickhouse: not prepared")
	}
	return "ClickHouse " + t.version, nil
}

// Describe says where the load went and what the tables are.
func (t *Target) Describe() *results.Setup {
	engine := "MergeTree"
	if t.cfg.Dedup {
		engine = "ReplacingMergeTree"
	}
	tm := "DateTime64(9) (nanoseconds)"
	if !t.dt64 {
		tm = "DateTime (whole seconds: the server has no DateTime64)"
	}
	st := &results.Setup{URL: "clickhouse://" + t.cfg.Addr, Database: t.cfg.DBName, Settings: map[string]any{
		"dedup": t.cfg.Dedup, "engine": engine + " ORDER BY (tags..., time)", "time": tm,
		"request-timeout": t.cfg.RequestTimeout.String(),
	}}
	if t.cfg.DBPath != "" {
		st.URL = "file:" + t.cfg.DBPath
		st.Settings["embedded"] = "chDB runs inside the loader: its CPU and memory are the loader's"
		delete(st.Settings, "request-timeout")
	}
	return st
}

// serverHasDateTime64: DateTime64 came with ClickHouse 20.1.
func serverHasDateTime64(version string) bool {
	major, _, _ := strings.Cut(version, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 20
}

// Prepare reads the server's version, creates the database (dropping it first with DropDB)
// and the known tables.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	conn, err := t.open(ctx)
	if err != nil {
		return err
	}
	rows, err := conn.rows(ctx, "SELECT version()")
	if err != nil || len(rows) != 1 {
		return fmt.Errorf("clickhouse: version: %v %w", rows, err)
	}
	v := rows[0][0]
	t.mu.Lock()
	defer t.mu.Unlock()
	t.version, t.dt64, t.opts = v, serverHasDateTime64(v), opts
	db := ident(t.cfg.DBName)
	rows, err = conn.rows(ctx, "SELECT toString(count()) FROM system.databases WHERE name = "+lit(t.cfg.DBName))
	if err != nil || len(rows) != 1 {
		return fmt.Errorf("clickhouse: database %s: %v %w", t.cfg.DBName, rows, err)
	}
	exists := rows[0][0] != "0"
	switch {
	case opts.DropDB && exists:
		if err := conn.exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
			return fmt.Errorf("clickhouse: dropping database %s: %w", t.cfg.DBName, err)
		}
		exists = false
	case opts.AbortOnExist && exists:
		return fmt.Errorf("clickhouse: database %s exists (--do-abort-on-exist)", t.cfg.DBName)
	}
	if !exists {
		if !opts.CreateDB {
			return fmt.Errorf("clickhouse: database %s does not exist (and --do-create-db=false)", t.cfg.DBName)
		}
		if err := conn.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db); err != nil {
			return fmt.Errorf("clickhouse: creating database %s: %w", t.cfg.DBName, err)
		}
	}
	t.prepared = true
	for _, tb := range opts.Tables {
		t.known[tb.Name] = tb
		if _, err := t.tableLocked(ctx, conn, tb.Name, tb); err != nil {
			return err
		}
	}
	return nil
}

// table returns the table name as the database has it, creating it (from the known tables,
// the use case, or like) when missing.
func (t *Target) table(ctx context.Context, name string, like *schema.Table) (*table, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tb := t.tables[name]; tb != nil {
		return tb, nil
	}
	conn, err := t.openLocked(ctx)
	if err != nil {
		return nil, err
	}
	return t.tableLocked(ctx, conn, name, like)
}

func (t *Target) tableLocked(ctx context.Context, conn backend, name string, like *schema.Table) (*table, error) {
	if tb := t.tables[name]; tb != nil {
		return tb, nil
	}
	have, err := describeTable(ctx, conn, t.cfg.DBName, name)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: reading table %q: %w", name, err)
	}
	if have != nil {
		if t.opts.AbortOnExist {
			return nil, fmt.Errorf("clickhouse: table %q exists (--do-abort-on-exist)", name)
		}
		t.tables[name] = have
		return have, nil
	}
	tb := t.known[name]
	if tb == nil {
		tb = load.LookupPrefixed(usecase.LookupTable, t.opts.TablePrefix, name)
	}
	if tb == nil {
		tb = like
	}
	if tb == nil {
		return nil, fmt.Errorf("clickhouse: table %q is not known (no use case or input header names it)", name)
	}
	c := *tb
	c.Name = name
	stmt, made := t.ddl(&c)
	if err := conn.exec(ctx, stmt); err != nil {
		return nil, fmt.Errorf("clickhouse: creating table %q: %w", name, err)
	}
	t.tables[name] = made
	return made, nil
}

// Count counts the rows of each table (0 for a table that does not exist), FINAL for a
// ReplacingMergeTree.
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	conn, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(tables))
	for _, name := range tables {
		tb, err := describeTable(ctx, conn, t.cfg.DBName, name)
		if err != nil {
			return nil, fmt.Errorf("clickhouse: table %q: %w", name, err)
		}
		if tb == nil {
			out[name] = 0
			continue
		}
		n, err := one(ctx, conn, "SELECT toString(count()) FROM "+tb.from(t.cfg.DBName))
		if err != nil {
			return nil, fmt.Errorf("clickhouse: counting %q: %w", name, err)
		}
		out[name] = n
	}
	return out, nil
}

// Close closes the connections.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.be == nil {
		return nil
	}
	err := t.be.close()
	t.be = nil
	return err
}

// one is the integer of a query of one row and one column.
func one(ctx context.Context, conn backend, stmt string) (int64, error) {
	rows, err := conn.rows(ctx, stmt)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("%s: %d rows, want one", stmt, len(rows))
	}
	return strconv.ParseInt(rows[0][0], 10, 64)
}

// InDoubt: a ReplacingMergeTree stores a point of the same series and time once, so a
// resumed load sends the batches in doubt again; a plain MergeTree would keep such a batch
// twice, and cannot be resumed.
func (t *Target) InDoubt(ctx context.Context, tables []string) (load.InDoubt, error) {
	if !t.cfg.Dedup {
		return 0, load.Settingf("clickhouse: with {Dedup} false the tables are MergeTree, which keeps a re-sent batch twice: a stopped load cannot be resumed")
	}
	conn, err := t.open(ctx)
	if err != nil {
		return 0, err
	}
	for _, name := range tables {
		tb, err := describeTable(ctx, conn, t.cfg.DBName, name)
		if err != nil {
			return 0, fmt.Errorf("clickhouse: table %q: %w", name, err)
		}
		if tb != nil && !tb.replacing {
			return 0, fmt.Errorf("clickhouse: table %q is a %s, which keeps a re-sent batch twice: a stopped load into it cannot be resumed", name, tb.engine)
		}
	}
	return load.ResendInDoubt, nil
}
