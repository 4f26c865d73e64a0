// Package timescale is the PostgreSQL / TimescaleDB target of the tsload
// loaders (cmd/load_timescale): it prepares the database and its tables (as
// TimescaleDB hypertables when the extension is available), writes batches
// over one pgx connection per worker with COPY (binary or CSV) or INSERT,
// and counts rows afterwards.
//
// Guarantees. Every batch is written atomically: one COPY statement, or one
// transaction when a batch spans several tables (ILP input) or uses the
// insert methods with CommitBatch. A batch is acknowledged only with the
// row count of the server's command tags, which must equal the batch's rows.
// Connection losses and the SQLSTATEs the server uses for "try again"
// (class 08, 40001, 40P01, 53300, 57P01-57P03) are retryable and the writer
// reconnects on its next Write; data errors (class 22, e.g. 22P04 bad COPY
// data) and everything else are fatal and name the batch's input position.
// No duplicates from lost answers: every batch runs in BEGIN ... COMMIT and
// the writer notes its transaction id (txid_current) and backend pid. When
// the answer to COMMIT is lost (connection cut, RequestTimeout, backend
// terminated), the writer connects again, terminates the old backend if it
// still holds the transaction (so a COMMIT still in flight cannot land
// later), and asks txid_status: committed means acknowledged, aborted means
// re-sent, anything else is a fatal error saying the batch may be in. A
// batch that fails before its COMMIT was sent never commits and is re-sent.
// With CommitRow a batch that fails after some
// rows were committed is reported as a fatal (non-retryable) error that says
// how many rows were committed. On a server with synchronous_commit=off,
// whose crash loses commits already answered, each writer keeps its last
// acknowledged batches and re-sends those a crash lost (async.go).
package timescale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/redact"
	"github.com/tsload/tsload/pkg/retry"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Method is how rows are sent.
type Method string

// Methods.
const (
	MethodAuto        Method = "auto"         // copy-binary for pgcopy and ILP input, copy-csv for CSV
	MethodCopyBinary  Method = "copy-binary"  // COPY ... (FORMAT binary)
	MethodCopyCSV     Method = "copy-csv"     // COPY ... (FORMAT csv), CSV input only
	MethodInsertMulti Method = "insert-multi" // multi-row INSERT ... VALUES (...),(...)
	MethodInsert      Method = "insert"       // one INSERT per row
)

// ParseMethod parses a Method name.
func ParseMethod(s string) (Method, error) {
	switch m := Method(s); m {
	case MethodAuto, MethodCopyBinary, MethodCopyCSV, MethodInsertMulti, MethodInsert:
		return m, nil
	case "":
		return MethodAuto, nil
	}
	return "", load.Settingf("unknown {Method} %q (want auto, copy-binary, copy-csv, insert-multi or insert)", s)
}

// For returns the concrete method used for input format f, or an error when
// the method cannot carry that format.
func (m Method) For(f format.Format) (Method, error) {
	switch {
	case m == MethodAuto || m == "":
		if f == format.CSV {
			return MethodCopyCSV, nil
		}
		return MethodCopyBinary, nil
	case m == MethodCopyBinary && f == format.CSV:
		return "", load.Settingf("{Method} copy-binary needs pgcopy or ILP input, not csv (use copy-csv, insert-multi or insert)")
	case m == MethodCopyCSV && f != format.CSV && f != format.Unknown:
		return "", load.Settingf("{Method} copy-csv needs csv input, not %s (use copy-binary, insert-multi or insert)", f)
	}
	return m, nil
}

// Commit is the transaction granularity of the insert methods.
type Commit string

// Commit modes.
const (
	CommitBatch Commit = "batch" // one transaction per batch
	CommitRow   Commit = "row"   // autocommit: one transaction per statement
)

// Hypertable is whether tables are made hypertables (--use-hypertable).
type Hypertable string

// Hypertable modes.
const (
	HypertableAuto Hypertable = "auto"  // when the timescaledb extension is available (the default)
	HypertableOn   Hypertable = "true"  // always: fail when the extension is not available
	HypertableOff  Hypertable = "false" // plain PostgreSQL tables
)

// Indexes is when the indexes on (tags..., time DESC) are created
// (--create-indexes).
type Indexes string

// Index modes.
const (
	IndexesNone   Indexes = "none"   // none (the default)
	IndexesBefore Indexes = "before" // with the tables, before the load
	IndexesAfter  Indexes = "after"  // by Finish, after the load
)

// Config configures the target.
type Config struct {
	// URL is a postgres:// URL or a key=value DSN. When set it replaces
	// Host, Port and User. Its database is the maintenance database used for
	// CREATE/DROP DATABASE (default "postgres"); DBName is the one loaded.
	URL      string
	Host     string // default 127.0.0.1
	Port     int    // default 5432
	User     string // default postgres
	Password string // also PGPASSWORD (read by pgx when this is empty)
	SSLMode  string // disable, allow, prefer, require, verify-ca, verify-full; empty: the URL's or pgx's default
	DBName   string // the database loaded (PrepareOptions.DBName overrides it)

	Method        Method
	Commit        Commit
	UseHypertable Hypertable
	ChunkTime     time.Duration // hypertable chunk interval (default 12h)
	// Partitions > 0 adds a by_hash dimension on each table's series tag
	// (its first tag) with that many partitions.
	Partitions int
	// Columnstore enables TimescaleDB's columnstore on each hypertable
	// with SegmentBy (default: the series tag; "none": no segmenting) and
	// OrderBy (default "time DESC").
	Columnstore bool
	SegmentBy   string
	OrderBy     string
	// CompressAfter converts every chunk to the columnstore in Finish.
	CompressAfter bool
	// DirectCompress compresses rows during COPY
	// (timescaledb.enable_direct_compress_copy) on every writer connection.
	DirectCompress bool
	Unlogged       bool // CREATE UNLOGGED TABLE (plain tables only)
	CreateIndexes  Indexes
	// RequestTimeout bounds the writing of one batch (0:
	// DefaultRequestTimeout). A batch that times out is retried on a new
	// connection (see Writer).
	RequestTimeout time.Duration
	// Log receives notes (the server's synchronous_commit=off); nil
	// discards them.
	Log io.Writer
}

// DefaultRequestTimeout bounds the writing of one batch when
// Config.RequestTimeout is zero, in a library Config as in load_timescale.
const DefaultRequestTimeout = 5 * time.Minute

func (c *Config) setDefaults() error {
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if c.Port == 0 {
		c.Port = 5432
	}
	if c.User == "" {
		c.User = "postgres"
	}
	if c.DBName == "" {
		c.DBName = load.DefaultDatabase
	}
	m, err := ParseMethod(string(c.Method))
	if err != nil {
		return err
	}
	c.Method = m
	switch c.Commit {
	case "":
		c.Commit = CommitBatch
	case CommitBatch, CommitRow:
	default:
		return load.Settingf("unknown {Commit} %q (want batch or row)", c.Commit)
	}
	switch c.UseHypertable {
	case "":
		c.UseHypertable = HypertableAuto
	case HypertableAuto, HypertableOn, HypertableOff:
	default:
		return load.Settingf("unknown {UseHypertable} %q (want auto, true or false)", c.UseHypertable)
	}
	if c.ChunkTime == 0 {
		c.ChunkTime = 12 * time.Hour
	}
	if c.ChunkTime < time.Second {
		return load.Settingf("{ChunkTime} %s is too small (want 1s or more)", c.ChunkTime)
	}
	switch c.CreateIndexes {
	case "":
		c.CreateIndexes = IndexesNone
	case IndexesNone, IndexesBefore, IndexesAfter:
	default:
		return load.Settingf("unknown {CreateIndexes} %q (want none, before or after)", c.CreateIndexes)
	}
	if c.RequestTimeout < 0 {
		return load.Settingf("{RequestTimeout} %s is negative", c.RequestTimeout)
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Unlogged && c.UseHypertable == HypertableOn {
		return load.Settingf("{Unlogged} needs plain tables: TimescaleDB hypertables cannot be unlogged (use {UseHypertable}=false)")
	}
	if c.Partitions < 0 {
		return load.Settingf("{Partitions} %d is negative", c.Partitions)
	}
	if c.CompressAfter || c.DirectCompress {
		c.Columnstore = true
	}
	if c.OrderBy == "" {
		c.OrderBy = "time DESC"
	}
	if c.needsTimescale() && (c.UseHypertable == HypertableOff || c.Unlogged) {
		return load.Settingf("{Partitions}, {Columnstore}, {CompressAfter} and {DirectCompress} need hypertables (not {UseHypertable}=false or {Unlogged})")
	}
	if c.DirectCompress && (c.Method == MethodInsert || c.Method == MethodInsertMulti) {
		return load.Settingf("{DirectCompress} compresses during COPY: {Method} %s does not COPY (use auto, copy-binary or copy-csv)", c.Method)
	}
	return nil
}

// directCompressGUC turns on compression during COPY into hypertables with
// the columnstore enabled (TimescaleDB 2.21+, src/guc.c).
const directCompressGUC = "timescaledb.enable_direct_compress_copy"

// needsTimescale reports whether the configuration needs the extension.
func (c *Config) needsTimescale() bool { return c.Partitions > 0 || c.Columnstore }

// connConfig parses the connection settings for database db ("" keeps the
// URL's database, or "postgres").
func (c *Config) connConfig(db string) (*pgx.ConnConfig, error) {
	var s string
	if err := load.CheckPGScheme("{URL}", c.URL); err != nil {
		return nil, err // not garbled as key=value settings (issue 43 item 15)
	}
	if c.URL != "" {
		s = c.URL
		if c.SSLMode != "" {
			if strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
				u, err := url.Parse(s)
				if err != nil {
					return nil, load.Settingf("{URL}: not a valid URL")
				}
				q := u.Query()
				q.Set("sslmode", c.SSLMode)
				u.RawQuery = q.Encode()
				s = u.String()
			} else {
				s += " sslmode=" + dsnQuote(c.SSLMode)
			}
		}
	} else {
		s = fmt.Sprintf("host=%s port=%d user=%s dbname=postgres", dsnQuote(c.Host), c.Port, dsnQuote(c.User))
		if c.SSLMode != "" {
			s += " sslmode=" + dsnQuote(c.SSLMode)
		}
	}
	cfg, err := pgx.ParseConfig(s)
	if err != nil {
		// pgconn redacts passwords in its parse errors; do so for ours too.
		return nil, redact.Error(fmt.Errorf("connection settings: %w", err), c.Password)
	}
	if !strings.Contains(s, "sslmode") && os.Getenv("PGSSLMODE") == "" && !isLoopback(cfg.Host) {
		// Certificate checks are on by default for a server off this
		// machine: verify-full, unless the user chose a mode.
		if c.URL != "" && (strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")) {
			if strings.Contains(s, "?") {
				s += "&sslmode=verify-full"
			} else {
				s += "?sslmode=verify-full"
			}
		} else {
			s += " sslmode=verify-full"
		}
		if cfg, err = pgx.ParseConfig(s); err != nil {
			return nil, redact.Error(fmt.Errorf("connection settings: %w", err), c.Password)
		}
	}
	if c.Password != "" {
		cfg.Password = c.Password
	}
	if c.URL == "" || cfg.Database == "" {
		cfg.Database = "postgres"
	}
	if db != "" {
		cfg.Database = db
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "tsload"
	if cfg.RuntimeParams["TimeZone"] == "" && cfg.RuntimeParams["timezone"] == "" {
		// A CSV time without an offset is UTC for every loader
		// (csv.ParseTime); COPY reads it in the session's zone.
		cfg.RuntimeParams["TimeZone"] = "UTC"
	}
	return cfg, nil
}

// isLoopback reports whether host is this machine (a loopback address, the
// name localhost, or a Unix socket directory), where TLS is not required.
func isLoopback(host string) bool {
	if host == "" || host == "localhost" || strings.HasPrefix(host, "/") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func dsnQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, ` '\`) {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// tableInfo is a table the target knows. Published values are immutable:
// adding columns publishes a new tableInfo.
type tableInfo struct {
	t            *schema.Table
	inferred     bool // from ILP lines (no use case describes it)
	colIdx       map[string]int
	oids         []uint32
	copyBin      string // COPY t (cols) FROM STDIN (FORMAT binary)
	copyCSV      string // COPY t (cols) FROM STDIN (FORMAT csv)
	insertPrefix string // INSERT INTO t (cols) VALUES
}

func newTableInfo(t *schema.Table, inferred bool) *tableInfo {
	ti := &tableInfo{t: t, inferred: inferred, colIdx: make(map[string]int, len(t.Columns)), oids: make([]uint32, len(t.Columns))}
	for i, c := range t.Columns {
		ti.colIdx[c.Name] = i
		ti.oids[i] = typeOID(c.Type)
	}
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = schema.QuoteIdent(c.Name)
	}
	head := schema.QuoteIdent(t.Name) + " (" + strings.Join(cols, ", ") + ")"
	ti.copyBin = "COPY " + head + " FROM STDIN (FORMAT binary)"
	ti.copyCSV = "COPY " + head + " FROM STDIN (FORMAT csv)"
	ti.insertPrefix = "INSERT INTO " + head + " VALUES "
	return ti
}

// Target is a PostgreSQL database.
type Target struct {
	cfg      Config
	password string // masked in every message
	// onTicket and onDurable are the load's (load.Hooks.OnTicket,
	// OnDurable), set before the first writer opens; each writer keeps them.
	onTicket  func(*load.Batch, string) error
	onDurable func(*load.Batch)

	mu         sync.Mutex
	admin      *pgx.Conn // to the target database (Prepare, lazy DDL, Count)
	opts       load.PrepareOptions
	hypertable bool
	tables     map[string]*tableInfo // created (or found) in the target database
	existing   map[string]bool       // tables the catalog found: used as they are, no DDL (catalog.go)
	tsbsTags   string                // the tags table of a TSBS file loaded (tsbs.go), "" for none
	finished   bool
	finishErr  error
	report     map[string]float64 // Finish's figures (load.Hooks.Report)

	// lostCommits counts the batches whose COMMIT answer was lost and that
	// the server then said were [0] not committed (re-sent), [1] committed.
	lostCommits [2]atomic.Int64

	async asyncState // acknowledged batches a crash may lose (async.go)
}

// LostCommits returns how many batches lost the answer to their COMMIT and
// were found not committed (and re-sent) or committed (and acknowledged).
func (t *Target) LostCommits() (aborted, committed int64) {
	return t.lostCommits[0].Load(), t.lostCommits[1].Load()
}

// New validates cfg and returns a Target. Nothing is contacted until Prepare.
func New(cfg Config) (*Target, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if _, err := cfg.connConfig(""); err != nil {
		return nil, err
	}
	return &Target{cfg: cfg, password: cfg.Password, tables: map[string]*tableInfo{}}, nil
}

// Config returns the effective configuration (defaults filled in).
func (t *Target) Config() Config { return t.cfg }

// Hypertables reports whether Prepare chose hypertables.
func (t *Target) Hypertables() bool { t.mu.Lock(); defer t.mu.Unlock(); return t.hypertable }

func (t *Target) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	cfg, err := t.cfg.connConfig(db)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, redact.Error(err, t.password)
	}
	return conn, nil
}

// Accepts takes every format its method can carry (see Method.For).
func (t *Target) Accepts(f format.Format) error {
	_, err := t.cfg.Method.For(f)
	return err
}

// Prepare creates (or checks) the database and the known tables.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if opts.DBName != "" {
		t.cfg.DBName = opts.DBName
	}
	db := t.cfg.DBName
	maint, err := t.connect(ctx, "")
	if err != nil {
		return fmt.Errorf("timescale: connecting to the maintenance database: %w", err)
	}
	defer maint.Close(context.Background())
	if db == maint.Config().Database {
		return load.Settingf("timescale: {DBName} %q is the maintenance database; choose another name", db)
	}
	if opts.DropDB {
		if _, err := maint.Exec(ctx, "DROP DATABASE IF EXISTS "+schema.QuoteIdent(db)+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("timescale: dropping database %q: %s", db, describe(err, nil))
		}
	}
	var exists bool
	if err := maint.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		return fmt.Errorf("timescale: %s", describe(err, nil))
	}
	switch {
	case exists && opts.AbortOnExist:
		return load.Settingf("timescale: database %q already exists ({AbortOnExist})", db)
	case !exists && !opts.CreateDB:
		return load.Settingf("timescale: database %q does not exist (and {CreateDB}=false)", db)
	case !exists:
		if _, err := maint.Exec(ctx, "CREATE DATABASE "+schema.QuoteIdent(db)); err != nil {
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "42P04" { // duplicate_database: created concurrently
				return fmt.Errorf("timescale: creating database %q: %s", db, describe(err, nil))
			}
		}
	}
	admin, err := t.connect(ctx, db)
	if err != nil {
		return fmt.Errorf("timescale: connecting to database %q: %w", db, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.admin != nil {
		t.admin.Close(context.Background())
	}
	t.admin = admin
	t.opts = opts
	t.tables = map[string]*tableInfo{}
	t.finished, t.finishErr, t.report = false, nil, nil

	// The extension is usable when it is installed and preloaded (CREATE
	// EXTENSION refuses it otherwise), or already created in the database.
	// The preloaded loader defines timescaledb.disable_load (a bool; an
	// unloaded module's setting would be a string placeholder): unlike
	// shared_preload_libraries, any role may see it.
	var available bool
	q := `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') OR
		(EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb') AND
		 EXISTS (SELECT 1 FROM pg_settings WHERE name = 'timescaledb.disable_load' AND vartype = 'bool'))`
	if err := admin.QueryRow(ctx, q).Scan(&available); err != nil {
		return fmt.Errorf("timescale: %s", describe(err, nil))
	}
	switch t.cfg.UseHypertable {
	case HypertableOn:
		if !available {
			return load.Settingf("timescale: {UseHypertable}=true but the timescaledb extension is not available on the server (installed and in shared_preload_libraries)")
		}
		t.hypertable = true
	case HypertableAuto:
		t.hypertable = available && !t.cfg.Unlogged
	default:
		t.hypertable = false
	}
	if !t.hypertable && t.cfg.needsTimescale() {
		return load.Settingf("timescale: {Partitions}, {Columnstore}, {CompressAfter} and {DirectCompress} need TimescaleDB, which the server does not have (installed and in shared_preload_libraries)")
	}
	if t.hypertable {
		if _, err := admin.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS timescaledb"); err != nil {
			return load.Settingf("timescale: CREATE EXTENSION timescaledb: %s (is timescaledb in shared_preload_libraries? or use {UseHypertable}=false)", describe(err, nil))
		}
	}
	if t.cfg.DirectCompress {
		// An unknown timescaledb.* setting would be accepted silently as a
		// placeholder: ask for the real one.
		var have bool
		q := "SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = " + sqlLiteral(directCompressGUC) + ")"
		if err := admin.QueryRow(ctx, q).Scan(&have); err != nil {
			return fmt.Errorf("timescale: %s", describe(err, nil))
		}
		if !have {
			return load.Settingf("timescale: {DirectCompress} needs TimescaleDB 2.21 or later (no %s setting on the server)", directCompressGUC)
		}
	}
	if opts.CreateDB && tsbsLayout(opts.Tables, opts.TablePrefix) { // TSBS's own tables (tsbs.go)
		if err := t.createTSBSLocked(ctx, admin, opts.Tables); err != nil {
			return err
		}
	}
	for _, tb := range opts.Tables {
		if err := t.createTableLocked(ctx, admin, tb, false); err != nil {
			return err
		}
	}
	return nil
}

// createTableLocked creates tb (if missing) with its hypertable and "before"
// indexes, and records it. t.mu is held.
func (t *Target) createTableLocked(ctx context.Context, conn *pgx.Conn, tb *schema.Table, inferred bool) error {
	name := tb.Name
	if t.opts.AbortOnExist {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", schema.QuoteIdent(name)).Scan(&exists); err != nil {
			return fmt.Errorf("timescale: %w", &writeError{msg: describe(err, nil), err: err})
		}
		if exists {
			return load.Settingf("timescale: table %q already exists ({AbortOnExist})", name)
		}
	}
	if (t.opts.CreateDB || inferred) && !t.existing[name] {
		if _, err := conn.Exec(ctx, tableDDL(tb, t.cfg.Unlogged)); err != nil {
			return fmt.Errorf("timescale: creating table %q: %w", name, &writeError{msg: describe(err, nil), err: err})
		}
		if t.hypertable {
			if err := createHypertable(ctx, conn, tb, &t.cfg); err != nil {
				return err
			}
		}
		if t.cfg.CreateIndexes == IndexesBefore {
			if _, err := conn.Exec(ctx, indexDDL(tb)); err != nil {
				return fmt.Errorf("timescale: creating index on %q: %w", name, &writeError{msg: describe(err, nil), err: err})
			}
		}
	}
	t.tables[name] = newTableInfo(tb, inferred)
	return nil
}

// tableDDL is schema.Table.PostgresDDL, extended to the boolean columns of
// tables inferred from ILP.
func tableDDL(tb *schema.Table, unlogged bool) string {
	valid := true
	for _, c := range tb.Columns {
		valid = valid && c.Type.Valid()
	}
	if valid {
		return tb.PostgresDDL(unlogged)
	}
	var b strings.Builder
	b.WriteString("CREATE ")
	if unlogged {
		b.WriteString("UNLOGGED ")
	}
	b.WriteString("TABLE IF NOT EXISTS " + schema.QuoteIdent(tb.Name) + " (")
	for i, c := range tb.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(schema.QuoteIdent(c.Name) + " " + typeSQL(c.Type))
		if i == 0 {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(")")
	return b.String()
}

// indexDDL is the index the loaders of the TimescaleDB study create: the
// tags then time descending (time alone for a table without tags).
func indexDDL(tb *schema.Table) string {
	cols := make([]string, 0, len(tb.Columns))
	for _, tag := range tb.Tags() {
		cols = append(cols, schema.QuoteIdent(tag))
	}
	cols = append(cols, schema.QuoteIdent(tb.TimeColumn())+" DESC")
	return "CREATE INDEX IF NOT EXISTS " + schema.QuoteIdent(truncIdent(tb.Name+"_tsload_idx")) +
		" ON " + schema.QuoteIdent(tb.Name) + " (" + strings.Join(cols, ", ") + ")"
}

func truncIdent(s string) string {
	if len(s) > 63 {
		return s[:63]
	}
	return s
}

// sqlLiteral quotes a string literal.
func sqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// seriesTag is the tag that identifies a series of tb (its first tag:
// hostname, name, location_id), or "" for a table without tags.
func seriesTag(tb *schema.Table) string {
	if tags := tb.Tags(); len(tags) > 0 {
		return tags[0]
	}
	return ""
}

// createHypertable turns tb into a hypertable partitioned on its time column
// by cfg.ChunkTime, with the by_range API of TimescaleDB 2.13+ and, when that
// function does not exist (42883), the older signature (never
// replication_factor); then the hash dimension and the columnstore settings
// of cfg.
func createHypertable(ctx context.Context, conn *pgx.Conn, tb *schema.Table, cfg *Config) error {
	interval := "INTERVAL " + sqlLiteral(strconv.FormatInt(cfg.ChunkTime.Microseconds(), 10)+" microseconds")
	rel := sqlLiteral(schema.QuoteIdent(tb.Name))
	col := sqlLiteral(tb.TimeColumn())
	_, err := conn.Exec(ctx, "SELECT create_hypertable("+rel+", by_range("+col+", "+interval+"), if_not_exists => TRUE)")
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42883" {
		_, err = conn.Exec(ctx, "SELECT create_hypertable("+rel+", "+col+", chunk_time_interval => "+interval+", if_not_exists => TRUE)")
	}
	if err != nil {
		return fmt.Errorf("timescale: create_hypertable(%q): %w", tb.Name, &writeError{msg: describe(err, nil), err: err})
	}
	if cfg.Partitions > 0 {
		tag := seriesTag(tb)
		if tag == "" {
			return load.Settingf("timescale: {Partitions}: table %q has no tag to partition on", tb.Name)
		}
		sql := fmt.Sprintf("SELECT add_dimension(%s, by_hash(%s, %d), if_not_exists => TRUE)", rel, sqlLiteral(tag), cfg.Partitions)
		if _, err := conn.Exec(ctx, sql); err != nil {
			return fmt.Errorf("timescale: add_dimension(%q, by_hash(%q, %d)): %w", tb.Name, tag, cfg.Partitions, &writeError{msg: describe(err, nil), err: err})
		}
	}
	if cfg.Columnstore {
		if _, err := conn.Exec(ctx, columnstoreDDL(tb, cfg.SegmentBy, cfg.OrderBy)); err != nil {
			return fmt.Errorf("timescale: enabling the columnstore on %q: %w", tb.Name, &writeError{msg: describe(err, nil), err: err})
		}
	}
	return nil
}

// columnstoreDDL enables the columnstore on tb: segmented by segmentBy
// ("" = the series tag, "none" = nothing) and ordered by orderBy.
func columnstoreDDL(tb *schema.Table, segmentBy, orderBy string) string {
	switch segmentBy {
	case "":
		if tag := seriesTag(tb); tag != "" {
			segmentBy = schema.QuoteIdent(tag)
		}
	case "none":
		segmentBy = ""
	}
	return "ALTER TABLE " + schema.QuoteIdent(tb.Name) + " SET (timescaledb.enable_columnstore = true, timescaledb.segmentby = " +
		sqlLiteral(segmentBy) + ", timescaledb.orderby = " + sqlLiteral(orderBy) + ")"
}

// table returns the known table name, or nil.
func (t *Target) table(name string) *tableInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tables[name]
}

// ensureTable makes sure table want exists with at least its columns,
// creating it (lazily, once per target) or adding missing columns of an
// inferred table, over conn. It returns the published tableInfo.
func (t *Target) ensureTable(ctx context.Context, conn *pgx.Conn, want *schema.Table, inferred bool) (*tableInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := t.tables[want.Name]
	if ti == nil {
		if err := t.createTableLocked(ctx, conn, want, inferred); err != nil {
			return nil, err
		}
		return t.tables[want.Name], nil
	}
	if !ti.inferred {
		return ti, nil
	}
	var added []schema.Column
	for _, c := range want.Columns {
		if i, ok := ti.colIdx[c.Name]; ok {
			if have := ti.t.Columns[i].Type; have != c.Type {
				return nil, fmt.Errorf("column %q of table %q is %s, the line has %s", c.Name, want.Name, typeSQL(have), typeSQL(c.Type))
			}
			continue
		}
		added = append(added, c)
	}
	if len(added) == 0 {
		return ti, nil
	}
	nt := &schema.Table{Name: want.Name, Columns: append(append([]schema.Column(nil), ti.t.Columns...), added...)}
	for _, c := range added {
		sql := "ALTER TABLE " + schema.QuoteIdent(want.Name) + " ADD COLUMN IF NOT EXISTS " + schema.QuoteIdent(c.Name) + " " + typeSQL(c.Type)
		if _, err := conn.Exec(ctx, sql); err != nil {
			return nil, fmt.Errorf("timescale: adding column %q to %q: %w", c.Name, want.Name, &writeError{msg: describe(err, nil), err: err})
		}
	}
	ti = newTableInfo(nt, true)
	t.tables[want.Name] = ti
	return ti, nil
}

// lookupSchema returns the schema of table name: known to the target, or
// from the use cases (nil when neither).
func (t *Target) lookupSchema(name string) *schema.Table {
	if ti := t.table(name); ti != nil {
		return ti.t
	}
	t.mu.Lock()
	prefix := t.opts.TablePrefix
	t.mu.Unlock()
	return load.LookupPrefixed(usecase.LookupTable, prefix, name)
}

// Finish (load.Hooks.Finish: the runner calls it after the last batch was
// acknowledged, unless the load failed) creates the "after" indexes, with
// CompressAfter converts every chunk to the columnstore, and
// measures the tables (Report). It runs once.
func (t *Target) Finish(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.finished {
		return t.finishErr
	}
	t.finished = true
	names := make([]string, 0, len(t.tables))
	for name := range t.tables {
		names = append(names, name)
	}
	sort.Strings(names)
	t.finishErr = t.withAdminLocked(ctx, func(conn *pgx.Conn) error {
		if err := t.finishTSBSLocked(ctx, conn); err != nil {
			return err
		}
		if t.cfg.CreateIndexes == IndexesAfter {
			for _, name := range names {
				if t.existing[name] {
					continue // a table that existed (or TSBS's, with its own indexes) gets no DDL
				}
				ti := t.tables[name]
				if _, err := conn.Exec(ctx, indexDDL(ti.t)); err != nil {
					return fmt.Errorf("timescale: creating index on %q: %w", ti.t.Name, &writeError{msg: describe(err, nil), err: err})
				}
			}
		}
		rep, err := t.measure(ctx, conn, names)
		if err != nil {
			return err
		}
		t.report = rep
		return nil
	})
	return t.finishErr
}

// measure reports the size of the loaded tables and, on hypertables, their
// chunks; with CompressAfter it compresses every chunk first and
// reports the time and the size before.
func (t *Target) measure(ctx context.Context, conn *pgx.Conn, names []string) (map[string]float64, error) {
	rep := map[string]float64{}
	size := func() (int64, error) { return tableSize(ctx, conn, names, t.hypertable) }
	if t.cfg.CompressAfter {
		before, err := size()
		if err != nil {
			return nil, err
		}
		rep["size_before_compress_bytes"] = float64(before)
		t0 := time.Now()
		for _, name := range names {
			q := "SELECT count(compress_chunk(c, if_not_compressed => true)) FROM show_chunks($1::regclass) c"
			if _, err := conn.Exec(ctx, q, schema.QuoteIdent(name)); err != nil {
				return nil, fmt.Errorf("timescale: compressing the chunks of %q: %w", name, &writeError{msg: describe(err, nil), err: err})
			}
		}
		rep["compress_seconds"] = time.Since(t0).Seconds()
	}
	after, err := size()
	if err != nil {
		return nil, err
	}
	rep["size_bytes"] = float64(after)
	if !t.hypertable {
		return rep, nil
	}
	var chunks, compressed int64
	q := `SELECT count(*), count(*) FILTER (WHERE is_compressed) FROM timescaledb_information.chunks
		WHERE hypertable_schema = current_schema() AND hypertable_name = ANY($1)`
	if err := conn.QueryRow(ctx, q, names).Scan(&chunks, &compressed); err != nil {
		return nil, fmt.Errorf("timescale: counting chunks: %w", &writeError{msg: describe(err, nil), err: err})
	}
	rep["chunks"] = float64(chunks)
	if t.cfg.Columnstore {
		rep["chunks_compressed"] = float64(compressed)
		// Rows per compressed batch (up to 1000) says how well the
		// columnstore could work: each direct-compressed COPY makes at least
		// one batch per segment it holds.
		n, err := compressedBatches(ctx, conn, names)
		if err != nil {
			return nil, err
		}
		rep["compressed_batches"] = float64(n)
	}
	return rep, nil
}

// compressedBatches counts the rows of the compressed chunks of tables: one
// per compressed batch.
func compressedBatches(ctx context.Context, conn *pgx.Conn, tables []string) (int64, error) {
	q := `SELECT format('%I.%I', cc.schema_name, cc.table_name)
		FROM _timescaledb_catalog.chunk c
		JOIN _timescaledb_catalog.chunk cc ON cc.id = c.compressed_chunk_id
		JOIN _timescaledb_catalog.hypertable h ON h.id = c.hypertable_id
		WHERE h.schema_name = current_schema() AND h.table_name = ANY($1)`
	rows, err := conn.Query(ctx, q, tables)
	if err != nil {
		return 0, fmt.Errorf("timescale: listing compressed chunks: %w", &writeError{msg: describe(err, nil), err: err})
	}
	rels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("timescale: listing compressed chunks: %w", &writeError{msg: describe(err, nil), err: err})
	}
	var total int64
	for _, rel := range rels {
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+rel).Scan(&n); err != nil {
			return 0, fmt.Errorf("timescale: counting %s: %w", rel, &writeError{msg: describe(err, nil), err: err})
		}
		total += n
	}
	return total, nil
}

// Report (load.Hooks.Report) returns what Finish measured: size_bytes (the
// tables with their indexes and, for hypertables, all chunks), chunks,
// chunks_compressed, and with CompressAfter compress_seconds and
// size_before_compress_bytes; with the columnstore compressed_batches.
// Nil before Finish.
func (t *Target) Report() map[string]float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.report
}

// ServerVersion (load.Target.ServerVersion) is "PostgreSQL <server_version>,
// TimescaleDB <extversion>" (the extension in the loaded database), or
// "..., no TimescaleDB".
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	conn, err := t.adminLocked(ctx)
	if err != nil {
		return "", err
	}
	var pg string
	var ts *string
	q := "SELECT current_setting('server_version'), (SELECT extversion FROM pg_extension WHERE extname = 'timescaledb')"
	if err := conn.QueryRow(ctx, q).Scan(&pg, &ts); err != nil {
		return "", fmt.Errorf("timescale: %s", describe(err, nil))
	}
	if ts == nil {
		return "PostgreSQL " + pg + ", no TimescaleDB", nil
	}
	return "PostgreSQL " + pg + ", TimescaleDB " + *ts, nil
}

// adminRetryTime bounds how long Count and Finish retry after losing the
// server (a restart at the end of a load).
const adminRetryTime = 60 * time.Second

// withAdminLocked runs fn on the target's own connection, reconnecting and
// running fn again after retryable errors for up to adminRetryTime. t.mu is held.
func (t *Target) withAdminLocked(ctx context.Context, fn func(*pgx.Conn) error) error {
	p := retry.Policy{Budget: adminRetryTime, Retryable: isRetryable}
	err := p.Do(ctx, func(ctx context.Context) error {
		conn, err := t.adminLocked(ctx)
		if err == nil {
			err = fn(conn)
		}
		if err != nil && isRetryable(err) && t.admin != nil {
			t.admin.Close(context.Background())
			t.admin = nil
		}
		return err
	})
	var g *retry.GiveUpError
	if errors.As(err, &g) {
		return g.Err
	}
	return err
}

func (t *Target) adminLocked(ctx context.Context) (*pgx.Conn, error) {
	if t.admin != nil && !t.admin.IsClosed() {
		return t.admin, nil
	}
	conn, err := t.connect(ctx, t.cfg.DBName)
	if err != nil {
		return nil, fmt.Errorf("timescale: connecting to database %q: %w", t.cfg.DBName, err)
	}
	t.admin = conn
	return conn, nil
}

// Count returns SELECT count(*) of each table; a table that does not exist
// counts 0. It makes one attempt: a lost connection or a server that is
// (re)starting is returned load.Retryable, the connection dropped, so that
// the runner retries the count within its retry budget.
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tables))
	err := t.adminOnce(ctx, func(conn *pgx.Conn) error {
		for _, name := range tables {
			var n int64
			err := conn.QueryRow(ctx, "SELECT count(*) FROM "+schema.QuoteIdent(name)).Scan(&n)
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
				out[name] = 0
				continue
			}
			if err != nil {
				return fmt.Errorf("timescale: counting %q: %w", name, &writeError{msg: describe(err, nil), err: err})
			}
			out[name] = n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// adminOnce runs fn once on the target's own connection: a lost
// connection or a server that is (re)starting is returned load.Retryable,
// the connection dropped, so that the runner retries within its budget.
func (t *Target) adminOnce(ctx context.Context, fn func(*pgx.Conn) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	conn, err := t.adminLocked(ctx)
	if err == nil {
		err = fn(conn)
	}
	if err != nil && isRetryable(err) {
		if t.admin != nil {
			t.admin.Close(context.Background())
			t.admin = nil
		}
		return load.Retryable(err)
	}
	return err
}

// Close closes the target's own connection. It builds nothing: a load that
// failed or was interrupted leaves the "after" indexes unbuilt. It is safe
// to call more than once, and without Prepare.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.admin == nil {
		return nil
	}
	err := t.admin.Close(context.Background())
	t.admin = nil
	return err
}
