// Package sqlembed is what the embedded SQL targets (pkg/target/duckdb,
// pkg/target/sqlite) share: the database is a file opened inside the
// loader's process, batches of ILP, CSV or pgcopy are decoded into typed
// rows (decode.go) and written in one of three commit modes, tickets make a
// resumed load exact, and count, content and footprint are read from the
// same file. What differs between the databases (how a table's rows are
// written, column types, the SQL of a few aggregates, the WAL's file) is
// an Engine.
//
// Commit modes. CommitBatch: each batch is one transaction, and the batch's
// ticket is inserted into the table tsload_batches in that transaction,
// so a resumed load settles a batch in doubt by looking its ticket up (a
// killed process's transaction never commits). CommitRow: a commit per row
// (autocommit); a resumed load cannot settle such a batch and is refused.
// CommitLoad: one transaction for the whole load, committed by Finish after
// the last batch; the workers share its connection one batch at a time, and
// a killed load committed nothing (resume is refused: start again).
package sqlembed

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Commit is when rows are committed.
type Commit string

// Commit modes (--commit).
const (
	CommitRow   Commit = "per-row"         // autocommit: a transaction per row
	CommitBatch Commit = "per-batch"       // a transaction per batch (the default)
	CommitLoad  Commit = "one-transaction" // one transaction for the whole load
)

// ParseCommit parses a Commit name ("" is CommitBatch).
func ParseCommit(s string) (Commit, error) {
	switch c := Commit(s); c {
	case CommitRow, CommitBatch, CommitLoad:
		return c, nil
	case "":
		return CommitBatch, nil
	}
	return "", load.Settingf("unknown {Commit} %q (want per-row, per-batch or one-transaction)", s)
}

// TicketTable holds the ticket of every batch committed with CommitBatch.
const TicketTable = "tsload_batches"

// Engine is one embedded database.
type Engine interface {
	// Name is the database's name in messages ("duckdb", "sqlite").
	Name() string
	// Open opens (creating when missing) the database file.
	Open(path string, workers int) (*sql.DB, error)
	// Begin is the statement that starts a write transaction.
	Begin() string
	// ColumnType is the SQL type a column of type t is created with.
	ColumnType(t schema.Type) string
	// Time is the value a timestamp (nanoseconds since the epoch) is
	// written as.
	Time(ns int64) driver.Value
	// NewRows opens the writer of tb's rows on conn: rows go into the
	// transaction that is open on conn (or each commits alone without
	// one); perRow asks for one statement per row.
	NewRows(ctx context.Context, conn *sql.Conn, tb *schema.Table, perRow bool) (RowWriter, error)
	// Columns is the query of a table's column names and types (the
	// table's name its one parameter), in order; no rows when it does not
	// exist.
	Columns() string
	// Aggregates are the engine's SQL for content verification.
	Aggregates() Aggregates
	// Querying is the engine's SQL for the query load.
	Querying() Querying
	// Checkpoint is the statement that moves the WAL into the file.
	Checkpoint() string
	// WAL is the path of the write-ahead log beside the file at path.
	WAL(path string) string
	// Version is the engine's version, for the results.
	Version(ctx context.Context, db *sql.DB) string
}

// Stager is an optional Engine capability: its RowWriters' Append only
// fills buffers of their own (the connection is used by Flush), so with
// CommitLoad each worker appends with writers of its own on the load's one
// connection without holding it, and only their Flush is one at a time.
// DuckDB's Appender is one: filling its data chunks is what a profile of a
// one-transaction load showed the workers waiting for each other on.
type Stager interface {
	Stages() bool
}

// RowWriter writes the rows of one table on one connection.
type RowWriter interface {
	// Append writes rows (each in the table's column order); a row of the
	// batch shares its values with others (decode.go's texts).
	Append(ctx context.Context, rows [][]driver.Value) error
	// Flush hands the appended rows to the database (before a commit).
	Flush(ctx context.Context) error
	Close() error
}

// Config configures a Target.
type Config struct {
	// Path is the database file (created when missing).
	Path    string
	Commit  Commit
	Workers int
	Log     io.Writer
}

// Target is an embedded database as a load.Target.
type Target struct {
	cfg Config
	eng Engine
	// onTicket is the load's (load.Hooks.OnTicket), set before the first
	// writer opens; each writer keeps it.
	onTicket func(*load.Batch, string) error
	prefix   string // the load's table prefix

	mu      sync.Mutex
	db      *sql.DB
	tables  map[string]*schema.Table // by name, as created or found
	known   map[string]*schema.Table // opts.Tables
	dropped map[string]bool          // tables dropped (DropDB) before their first write
	opts    load.PrepareOptions
	version string

	// CommitLoad: the one connection and its transaction.
	shared    *session
	sharedMu  sync.Mutex
	runID     string // a random prefix that makes tickets unique across processes
	ticketSeq atomic.Int64
}

// New returns a target of eng; it opens nothing.
func New(cfg Config, eng Engine) (*Target, error) {
	if cfg.Path == "" {
		return nil, load.Settingf("%s: {Path} is empty", eng.Name())
	}
	if cfg.Commit == "" {
		cfg.Commit = CommitBatch
	}
	if _, err := ParseCommit(string(cfg.Commit)); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Target{cfg: cfg, eng: eng, tables: map[string]*schema.Table{}, known: map[string]*schema.Table{},
		dropped: map[string]bool{}, runID: hex.EncodeToString(b[:])}, nil
}

// Accepts takes ILP, CSV and pgcopy (Parquet arrives as pgcopy, TSBS files
// as CSV: the runner converts them).
func (t *Target) Accepts(f format.Format) error {
	switch f {
	case format.ILP, format.CSV, format.PGCopy, format.Unknown:
		return nil
	}
	return fmt.Errorf("%s: cannot load %s input", t.eng.Name(), f)
}

// open opens the database file once.
func (t *Target) open() (*sql.DB, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.openLocked()
}

func (t *Target) openLocked() (*sql.DB, error) {
	if t.db != nil {
		return t.db, nil
	}
	db, err := t.eng.Open(t.cfg.Path, max(t.cfg.Workers, 1))
	if err != nil {
		return nil, fmt.Errorf("%s: opening %s: %w", t.eng.Name(), t.cfg.Path, err)
	}
	t.db = db
	return db, nil
}

// Prepare opens the file (creating it unless opts.CreateDB is false) and
// creates the known tables; DropDB drops them first (and any other table
// the load writes, before its first write), never the file.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if !opts.CreateDB {
		if _, err := os.Stat(t.cfg.Path); err != nil {
			return fmt.Errorf("%s: database file %s: %w (and --do-create-db=false)", t.eng.Name(), t.cfg.Path, err)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts = opts
	t.prefix = opts.TablePrefix
	db, err := t.openLocked()
	if err != nil {
		return err
	}
	t.version = t.eng.Version(ctx, db)
	if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+TicketTable+" (ticket VARCHAR NOT NULL)"); err != nil {
		return fmt.Errorf("%s: creating %s: %w", t.eng.Name(), TicketTable, err)
	}
	for _, tb := range opts.Tables {
		t.known[tb.Name] = tb
		if _, err := t.tableLocked(ctx, db, tb.Name, tb); err != nil {
			return err
		}
	}
	return nil
}

// querier is a connection or the pool.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// table returns the table name as the database has it, creating it (from
// the known tables, the use case, or like) when missing, on s's
// connection: SQLite lets one connection write at a time, and the load's
// one transaction (CommitLoad) holds it.
func (t *Target) table(ctx context.Context, s *session, name string, like *schema.Table) (*schema.Table, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tb := t.tables[name]; tb != nil {
		return tb, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return t.tableLocked(ctx, s.conn, name, like)
}

func (t *Target) tableLocked(ctx context.Context, db querier, name string, like *schema.Table) (*schema.Table, error) {
	if tb := t.tables[name]; tb != nil {
		return tb, nil
	}
	if t.opts.DropDB && !t.dropped[name] {
		if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+schema.QuoteIdent(name)); err != nil {
			return nil, fmt.Errorf("%s: dropping table %q: %w", t.eng.Name(), name, err)
		}
		t.dropped[name] = true
	}
	have, err := describeTable(ctx, db, t.eng, name)
	if err != nil {
		return nil, fmt.Errorf("%s: reading table %q: %w", t.eng.Name(), name, err)
	}
	if have != nil {
		if t.opts.AbortOnExist {
			return nil, fmt.Errorf("%s: table %q exists (--do-abort-on-exist)", t.eng.Name(), name)
		}
		t.tables[name] = have
		return have, nil
	}
	tb := t.known[name]
	if tb == nil {
		tb = load.LookupPrefixed(usecase.LookupTable, t.prefix, name)
	}
	if tb == nil {
		tb = like
	}
	if tb == nil {
		return nil, fmt.Errorf("%s: table %q is not known (no use case or input header names it)", t.eng.Name(), name)
	}
	c := *tb
	c.Name = name
	if _, err := db.ExecContext(ctx, t.ddl(&c)); err != nil {
		return nil, fmt.Errorf("%s: creating table %q: %w", t.eng.Name(), name, err)
	}
	t.tables[name] = &c
	return &c, nil
}

func (t *Target) ddl(tb *schema.Table) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	b.WriteString(schema.QuoteIdent(tb.Name))
	b.WriteString(" (")
	for i, c := range tb.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(schema.QuoteIdent(c.Name))
		b.WriteByte(' ')
		b.WriteString(t.eng.ColumnType(c.Type))
		if i == 0 {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(")")
	return b.String()
}

// describeTable reads a table's columns, or nil when it does not exist. Types are read back
// from the names the engines give them.
func describeTable(ctx context.Context, db querier, eng Engine, name string) (*schema.Table, error) {
	cols, err := tableInfo(ctx, db, eng, name)
	if err != nil || len(cols) == 0 {
		return nil, err
	}
	tb := &schema.Table{Name: name}
	for _, c := range cols {
		typ := typeOf(c.typ)
		tb.Columns = append(tb.Columns, schema.Column{Name: c.name, Type: typ, Tag: typ == schema.Text})
	}
	return tb, nil
}

type column struct{ name, typ string }

func tableInfo(ctx context.Context, db querier, eng Engine, name string) ([]column, error) {
	rows, err := db.QueryContext(ctx, eng.Columns(), name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.typ); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// typeOf maps an engine's column type name to a schema.Type (0: none).
func typeOf(typ string) schema.Type {
	switch u := strings.ToUpper(typ); {
	case strings.HasPrefix(u, "TIMESTAMP"):
		return schema.Timestamp
	case u == "BIGINT" || u == "INT8":
		return schema.Int8
	case u == "INTEGER" || u == "INT" || u == "INT4":
		return schema.Int4
	case u == "DOUBLE" || u == "FLOAT8" || u == "DOUBLE PRECISION":
		return schema.Float8
	case u == "REAL" || u == "FLOAT" || u == "FLOAT4": // DuckDB names REAL "FLOAT"
		return schema.Float4
	case u == "VARCHAR" || u == "TEXT":
		return schema.Text
	}
	return 0
}

// NewWriter opens worker's connection (CommitLoad: the one shared
// session, opened by the first writer).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	db, err := t.open()
	if err != nil {
		return nil, err
	}
	w := &Writer{t: t, worker: worker, onTicket: t.onTicket}
	if t.cfg.Commit == CommitLoad {
		t.sharedMu.Lock()
		defer t.sharedMu.Unlock()
		if t.shared == nil {
			s, err := t.newSession(ctx, db)
			if err != nil {
				return nil, err
			}
			if _, err := s.conn.ExecContext(ctx, t.eng.Begin()); err != nil {
				s.close()
				return nil, fmt.Errorf("%s: beginning the load's transaction: %w", t.eng.Name(), err)
			}
			s.inTx = true
			t.shared = s
		}
		w.s = t.shared
		return w, nil
	}
	s, err := t.newSession(ctx, db)
	if err != nil {
		return nil, err
	}
	w.s = s
	return w, nil
}

// Finish commits the load's one transaction (CommitLoad).
func (t *Target) Finish(ctx context.Context) error {
	t.sharedMu.Lock()
	defer t.sharedMu.Unlock()
	s := t.shared
	if s == nil || !s.inTx {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flush(ctx); err != nil {
		return err
	}
	if _, err := s.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("%s: committing the load's one transaction: %w", t.eng.Name(), err)
	}
	s.inTx = false
	return nil
}

// Count counts the rows of each table (0 for a table that does not exist).
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	db, err := t.open()
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(tables))
	for _, name := range tables {
		cols, err := tableInfo(ctx, db, t.eng, name)
		if err != nil {
			return nil, fmt.Errorf("%s: table %q: %w", t.eng.Name(), name, err)
		}
		if len(cols) == 0 {
			out[name] = 0
			continue
		}
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+schema.QuoteIdent(name)).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: counting %q: %w", t.eng.Name(), name, err)
		}
		out[name] = n
	}
	return out, nil
}

// Close closes the shared session (rolling back a load's transaction that
// Finish did not commit) and the database.
func (t *Target) Close() error {
	t.sharedMu.Lock()
	if t.shared != nil {
		t.shared.close()
		t.shared = nil
	}
	t.sharedMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.db == nil {
		return nil
	}
	err := t.db.Close()
	t.db = nil
	return err
}

var _ load.Target = (*Target)(nil)

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Finish:       t.Finish,
		FlushStorage: t.FlushStorage,
		Settle:       t.Settle,
		NewQuerier:   t.NewQuerier,
		OnTicket:     func(note func(*load.Batch, string) error) { t.onTicket = note },
	}
}

// Ping: there is no server to reach (the file is opened by Prepare).
func (t *Target) Ping(context.Context) error { return nil }

// ServerAddr is "": the database runs inside the loader, whose command
// names its own process as the server's (cmd/load_duckdb, load_sqlite).
func (t *Target) ServerAddr() string { return "" }

// Describe says where the load went.
func (t *Target) Describe() *results.Setup {
	return &results.Setup{URL: "file:" + t.cfg.Path, Settings: map[string]any{"commit": string(t.cfg.Commit),
		"embedded": "the database runs inside the loader: its CPU and memory are the loader's"}}
}

// ServerVersion is the engine's version (read by Prepare).
func (t *Target) ServerVersion(context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.version == "" {
		return "", errors.New("not opened")
	}
	return t.version, nil
}

// session is one connection and the table writers open on it.
type session struct {
	mu   sync.Mutex // CommitLoad: the workers share the session
	t    *Target
	conn *sql.Conn
	rows map[string]RowWriter
	inTx bool
	// ticket is the prepared insert of a batch's ticket (CommitBatch).
	ticket *sql.Stmt
}

func (t *Target) newSession(ctx context.Context, db *sql.DB) (*session, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: connecting: %w", t.eng.Name(), err)
	}
	return &session{t: t, conn: conn, rows: map[string]RowWriter{}}, nil
}

func (s *session) writer(ctx context.Context, tb *schema.Table) (RowWriter, error) {
	return s.writerKey(ctx, tb.Name, tb)
}

// writerKey is the writer of tb's rows kept under key (the table's name, or
// a worker's own: appendStaged).
func (s *session) writerKey(ctx context.Context, key string, tb *schema.Table) (RowWriter, error) {
	if rw := s.rows[key]; rw != nil {
		return rw, nil
	}
	rw, err := s.t.eng.NewRows(ctx, s.conn, tb, s.t.cfg.Commit == CommitRow)
	if err != nil {
		return nil, fmt.Errorf("%s: writer of %q: %w", s.t.eng.Name(), tb.Name, err)
	}
	s.rows[key] = rw
	return rw, nil
}

// flush hands every appended row to the database and closes the table
// writers (a batch's transaction then commits; the next batch opens new
// ones).
func (s *session) flush(ctx context.Context) error {
	var err error
	for k, rw := range s.rows {
		if ferr := rw.Flush(ctx); ferr != nil && err == nil {
			err = ferr
		}
		if cerr := rw.Close(); cerr != nil && err == nil {
			err = cerr
		}
		delete(s.rows, k)
	}
	return err
}

func (s *session) close() {
	for _, rw := range s.rows {
		rw.Close()
	}
	s.rows = map[string]RowWriter{}
	if s.inTx {
		s.conn.ExecContext(context.Background(), "ROLLBACK")
		s.inTx = false
	}
	if s.ticket != nil {
		s.ticket.Close()
		s.ticket = nil
	}
	s.conn.Close()
}

// Writer writes batches on one session.
type Writer struct {
	t        *Target
	worker   int
	s        *session
	dec      decoder
	onTicket func(*load.Batch, string) error
	staged   map[RowWriter]int // rows appended since the writer's last Flush (appendStaged)
}

// Write decodes b and writes its rows in the commit mode.
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	groups, err := w.dec.decode(ctx, w.t, w.s, b)
	if err != nil {
		return load.Ack{}, err
	}
	name := w.t.eng.Name()
	if st, ok := w.t.eng.(Stager); ok && st.Stages() && w.t.cfg.Commit == CommitLoad {
		if err := w.appendStaged(ctx, groups); err != nil {
			return load.Ack{}, fmt.Errorf("%s: %w (the load's one transaction is rolled back)", name, err)
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	switch w.t.cfg.Commit {
	case CommitRow:
		n := 0
		for _, g := range groups {
			rw, err := s.writer(ctx, g.table)
			if err != nil {
				return load.Ack{}, err
			}
			for i := range g.rows {
				if err := rw.Append(ctx, g.rows[i:i+1]); err != nil {
					if n == 0 {
						return load.Ack{}, fmt.Errorf("%s: %w", name, err)
					}
					return load.Ack{}, fmt.Errorf("%s: %w (%d rows of the batch were committed, one per row: the table holds part of it)", name, err, n)
				}
				n++
			}
		}
		return load.Ack{Rows: n}, nil
	case CommitLoad:
		if err := w.append(ctx, groups); err != nil {
			return load.Ack{}, fmt.Errorf("%s: %w (the load's one transaction is rolled back)", name, err)
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	if _, err := s.conn.ExecContext(ctx, w.t.eng.Begin()); err != nil {
		return load.Ack{}, load.Retryable(fmt.Errorf("%s: begin: %w", name, err))
	}
	s.inTx = true
	rollback := func(err error) (load.Ack, error) {
		for k, rw := range s.rows { // an appender may hold rows of the failed batch
			rw.Close()
			delete(s.rows, k)
		}
		s.conn.ExecContext(context.Background(), "ROLLBACK")
		s.inTx = false
		return load.Ack{}, fmt.Errorf("%s: %w", name, err)
	}
	if err := w.append(ctx, groups); err != nil {
		return rollback(err)
	}
	if err := s.flush(ctx); err != nil {
		return rollback(err)
	}
	ticket := fmt.Sprintf("%s-%d", w.t.runID, w.t.ticketSeq.Add(1))
	if s.ticket == nil {
		// Prepared once per connection: parsed and planned per batch, the
		// statement was 4% of a per-batch load's CPU in a profile.
		st, err := s.conn.PrepareContext(ctx, "INSERT INTO "+TicketTable+" VALUES (?)")
		if err != nil {
			return rollback(err)
		}
		s.ticket = st
	}
	if _, err := s.ticket.ExecContext(ctx, ticket); err != nil {
		return rollback(err)
	}
	if w.onTicket != nil {
		if err := w.onTicket(b, ticket); err != nil {
			return rollback(err)
		}
	}
	if _, err := s.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return rollback(fmt.Errorf("commit: %w", err))
	}
	s.inTx = false
	return load.Ack{Rows: b.Rows}, nil
}

// append appends every row of groups on the session (its lock held).
func (w *Writer) append(ctx context.Context, groups []group) error {
	s := w.s
	for _, g := range groups {
		rw, err := s.writer(ctx, g.table)
		if err != nil {
			return err
		}
		if err := rw.Append(ctx, g.rows); err != nil {
			return err
		}
	}
	return nil
}

// appendStaged appends groups with the worker's own writers on the shared
// session (CommitLoad, a Stager engine): opened and flushed holding the
// session, filled without it, flushed (holding the session) when they
// hold stageRows rows. Finish flushes and closes them with the session's
// other writers before its COMMIT.
func (w *Writer) appendStaged(ctx context.Context, groups []group) error {
	s := w.s
	rws := make([]RowWriter, len(groups))
	s.mu.Lock()
	for i, g := range groups {
		rw, err := s.writerKey(ctx, fmt.Sprintf("%d\x00%s", w.worker, g.table.Name), g.table)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		rws[i] = rw
	}
	s.mu.Unlock()
	var full []RowWriter
	for i, g := range groups {
		if err := rws[i].Append(ctx, g.rows); err != nil {
			return err
		}
		if w.staged == nil {
			w.staged = map[RowWriter]int{}
		}
		if w.staged[rws[i]] += len(g.rows); w.staged[rws[i]] >= stageRows {
			full = append(full, rws[i])
		}
	}
	if len(full) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rw := range full {
		if err := rw.Flush(ctx); err != nil {
			return err
		}
		w.staged[rw] = 0
	}
	return nil
}

// stageRows is how many rows a worker's writer holds before its Flush (a
// Stager's, CommitLoad): DuckDB's Appender flushes as one INSERT query
// each, which a profile showed costing more per row in many small ones than
// in few of more than a row group (122,880 rows), which DuckDB also writes
// to the file while the transaction is open.
const stageRows = 1 << 17

// Close closes the writer's own session (not the shared one: Target.Close).
func (w *Writer) Close() error {
	if w.t.cfg.Commit != CommitLoad && w.s != nil {
		w.s.close()
		w.s = nil
	}
	return nil
}

// InDoubt: with CommitBatch a batch in doubt is settled by its ticket
// (load.SettleInDoubt); the other modes cannot be resumed.
func (t *Target) InDoubt(context.Context, []string) (load.InDoubt, error) {
	switch t.cfg.Commit {
	case CommitRow:
		return 0, load.Settingf("%s: with {Commit} per-row a batch is many transactions, of which any number may have committed", t.eng.Name())
	case CommitLoad:
		return 0, load.Settingf("%s: with {Commit} one-transaction a stopped load committed nothing: load again with --drop-db", t.eng.Name())
	}
	return load.SettleInDoubt, nil
}

// Settle reports whether each ticket's batch committed: its ticket is in
// TicketTable. The process that wrote it is gone (the file is opened by
// one process at a time), so a batch not found cannot commit later.
func (t *Target) Settle(ctx context.Context, tickets []string) ([]bool, error) {
	db, err := t.open()
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(tickets))
	for i, tk := range tickets {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+TicketTable+" WHERE ticket = ?", tk).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: settling ticket %q: %w", t.eng.Name(), tk, err)
		}
		out[i] = n > 0
	}
	return out, nil
}

// Footprint is the size of the database file and its WAL.
func (t *Target) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	var total int64
	for _, p := range []string{t.cfg.Path, t.eng.WAL(t.cfg.Path)} {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return load.Size{}, err
		}
		total += st.Size()
	}
	return load.Size{Bytes: total, Method: "size of the file " + t.cfg.Path + " and its WAL (the whole database)", Refresh: 0}, nil
}

// FlushStorage checkpoints the WAL into the file.
func (t *Target) FlushStorage(ctx context.Context, tables []string) (string, error) {
	db, err := t.open()
	if err != nil {
		return "", err
	}
	q := t.eng.Checkpoint()
	if _, err := db.ExecContext(ctx, q); err != nil {
		return q, fmt.Errorf("%s: %s: %w", t.eng.Name(), q, err)
	}
	return q, nil
}
