// Package questdb is the QuestDB target of the shared load runner: it writes
// ILP batches over HTTP (POST /write?precision=n, one transaction per table
// per request, 204 once committed to the WAL) or over TCP (port 9009, no
// acknowledgements), creates tables with DEDUP so a re-sent request cannot
// duplicate rows, and counts rows only after every table's WAL is applied.
//
// Input is ILP only: a batch goes to the server byte for byte, minus comment
// and blank-only lines, which QuestDB's ILP parser refuses. CSV and pgcopy
// batches are refused with an error.
//
// # Tables
//
// Tables are prepared (DropDB, AbortOnExist, CreateDB) up
// front from the runner's list and Config.UseCase, and otherwise lazily, before
// the first batch that names them is sent, when Config.Lookup (default
// usecase.LookupTable) knows the name. The DDL: designated timestamp
// "timestamp" (the column ILP's timestamp goes to), tags SYMBOL, doubles
// DOUBLE, integers LONG, PARTITION BY DAY WAL, and with Dedup
// DEDUP UPSERT KEYS(timestamp, <tags>). A table of any other name is left to
// QuestDB's auto-creation (WAL, no DEDUP). An existing table that is not WAL,
// or lacks DEDUP while Dedup is on, is an error naming it.
//
// # Guarantees
//
// HTTP: 204 means the rows are committed to the WAL; only then are they
// counted. 500, 503, 504, 507, 509, 523, 524, 529, 599, network errors and
// the request timeout (request_timeout + body/min_throughput) are retryable;
// a re-send after a lost answer cannot duplicate with DEDUP (without it,
// verification catches the surplus). Any other status is fatal: QuestDB
// rolls the whole request back, and the error carries the server's code,
// message and errorId with its line number mapped to the input file's line.
//
// TCP: the server acknowledges nothing; an Ack means the bytes were handed
// to the socket. The server closes the connection after a bad line; the
// writer notices before its next batch and fails (rows sent earlier on that
// connection may be lost). A write error reports the bytes written; it is
// retried only when every table of the batch has DEDUP keys, since a re-send
// could duplicate the part already received. Verification decides.
//
// Count waits until wal_tables() shows writerTxn = sequencerTxn for every
// table (for TCP, unchanged for Settle, as the server commits what it
// received some time later), fails naming a suspended table, then runs
// SELECT count(). Queries go over PG wire (pgx) or, without a PG URL, HTTP
// /exec.
package questdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/usecase"
)

// Transport is how ILP reaches the server (--transport).
type Transport string

// Transports.
const (
	HTTP Transport = "http" // POST /write: every request acknowledged
	TCP  Transport = "tcp"  // port 9009: nothing acknowledged
)

// Config configures a Target.
type Config struct {
	// Transport is HTTP (the default) or TCP.
	Transport Transport
	// URL is the HTTP endpoint base, http(s)://host:port: ILP/HTTP writes,
	// and /exec queries when PG is empty.
	URL string
	// TCPAddr is host:port of ILP/TCP; TCPTLS wraps it in TLS.
	TCPAddr string
	TCPTLS  bool
	// InsecureSkipVerify does not check the server certificate (https, tcps).
	InsecureSkipVerify bool
	// User/Password (HTTP basic) or Token (HTTP bearer).
	User, Password, Token string
	// Gzip compresses ILP/HTTP request bodies (Content-Encoding: gzip,
	// accepted from QuestDB 9.1.0; ILP/HTTP only) at GzipLevel (1-9).
	Gzip      bool
	GzipLevel int
	// RequestTimeout + len(body)/MinThroughput seconds bound one request.
	RequestTimeout time.Duration
	MinThroughput  int64
	// PG is the PG-wire URL for DDL and counts; empty means HTTP /exec of
	// URL, the server the rows are written to. It must name the host the
	// rows are written to, and Ping checks it answers as QuestDB.
	PG string
	// Dedup creates tables with DEDUP UPSERT KEYS(timestamp, <tags>).
	Dedup bool
	// UseCase names a pkg/usecase use case whose tables Prepare creates.
	UseCase string
	// ProtocolVersion is the line protocol version written: ProtocolAuto
	// (as QuestDB's clients decide), 1 (text, as the input holds it; 0
	// means DefaultProtocolVersion), 2 or 3 (doubles in binary form; see
	// Target.ProtocolVersion).
	ProtocolVersion int
	// WALTimeout bounds Count's wait for the WAL to be applied.
	WALTimeout time.Duration
	// Settle bounds Await's wait (ILP/TCP) for rows that have not arrived:
	// it gives up once nothing has changed for this long (0 means the
	// default, 10s: the server commits TCP rows on a timer of its own,
	// later when it is busy; 3s was once too short in a CI run under load).
	// Rows that arrive end the wait at once.
	Settle time.Duration
	// Log receives notes (tables left to auto-creation); nil discards.
	Log io.Writer
	// Lookup returns the schema of a table a batch names (default
	// usecase.LookupTable); nil means the server auto-creates the table.
	Lookup func(name string) *schema.Table
}

// Defaults of the QuestDB clients.
const (
	DefaultRequestTimeout = 10 * time.Second
	DefaultMinThroughput  = 100 * 1024
	DefaultWALTimeout     = 5 * time.Minute
)

// Target is a QuestDB server.
type Target struct {
	cfg    Config
	client *httpwrite.Client // nil without an HTTP URL (ILP/TCP, queries over PG wire)

	mu       sync.Mutex
	q        querier
	opts     load.PrepareOptions
	prepared bool
	proto    int // line protocol version, once decided (ProtocolVersion)

	sentBytes atomic.Int64 // request bodies (TCP: batches) acknowledged, before gzip
	known     map[string]*schema.Table
	done      map[string]error // table name -> result of ensure
	dedup     map[string]bool  // tables created or found with DEDUP
	noted     map[string]bool

	appliedMu   sync.Mutex
	appliedUpTo map[string]int64 // by table: sentBytes read before a wal_tables() poll found it applied (queryload.go)

	// resumed are the tables of a resumed load (InDoubt), with DEDUP as
	// found: a run that writes none of them (every batch acknowledged
	// earlier) still records what its load applied.
	resumed map[string]bool
}

// New checks cfg and returns a Target. It connects nothing yet.
func New(cfg Config) (*Target, error) {
	switch cfg.Transport {
	case HTTP, TCP:
	case "":
		cfg.Transport = HTTP
	default:
		return nil, load.Settingf("questdb: unknown {Transport} %q (want http or tcp)", cfg.Transport)
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if cfg.URL != "" && !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://") {
		return nil, load.Settingf("questdb: HTTP URL {URL} %q: want http://host:port or https://host:port", cfg.URL)
	}
	if cfg.Transport == HTTP && cfg.URL == "" {
		return nil, load.Settingf("questdb: transport http needs an HTTP URL ({URL})")
	}
	if cfg.Transport == TCP {
		if _, _, err := net.SplitHostPort(cfg.TCPAddr); err != nil {
			return nil, load.Settingf("questdb: ILP/TCP address {TCPAddr} %q: %w", cfg.TCPAddr, err)
		}
	}
	if cfg.Gzip {
		// ILP/TCP is a byte stream without Content-Encoding: a gzip asked
		// for it would silently not happen.
		if cfg.Transport == TCP {
			return nil, load.Settingf("questdb: {Gzip} applies to ILP/HTTP only (not {Transport} tcp)")
		}
		if !httpwrite.ValidGzipLevel(cfg.GzipLevel) {
			return nil, load.Settingf("questdb: invalid {GzipLevel} %d (want 1-9)", cfg.GzipLevel)
		}
	}
	if cfg.PG == "" && cfg.URL == "" {
		return nil, load.Settingf("questdb: need a PG-wire URL ({PG}) or an HTTP URL ({URL}) for queries")
	}
	if err := oneServer(cfg); err != nil {
		return nil, err
	}
	if cfg.ProtocolVersion == 0 {
		cfg.ProtocolVersion = DefaultProtocolVersion
	}
	if cfg.ProtocolVersion < ProtocolAuto || cfg.ProtocolVersion > ProtocolMax {
		return nil, load.Settingf("questdb: {ProtocolVersion} %d: want auto (ProtocolAuto), 1, 2 or 3", cfg.ProtocolVersion)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MinThroughput <= 0 {
		cfg.MinThroughput = DefaultMinThroughput
	}
	if cfg.WALTimeout <= 0 {
		cfg.WALTimeout = DefaultWALTimeout
	}
	if cfg.Settle <= 0 {
		cfg.Settle = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Lookup == nil {
		cfg.Lookup = usecase.LookupTable
	}
	t := &Target{
		cfg:   cfg,
		known: map[string]*schema.Table{},
		done:  map[string]error{},
		dedup: map[string]bool{},
		noted: map[string]bool{},

		resumed: map[string]bool{},
	}
	if cfg.UseCase != "" {
		tables, err := usecase.Tables(cfg.UseCase)
		if err != nil {
			return nil, fmt.Errorf("questdb: use case: %w", err)
		}
		for _, tb := range tables {
			t.known[tb.Name] = tb
		}
	}
	if cfg.URL != "" {
		o := httpwrite.Options{URLs: []string{cfg.URL}, InsecureSkipVerify: cfg.InsecureSkipVerify, User: cfg.User, Password: cfg.Password,
			Gzip: cfg.Gzip, GzipLevel: cfg.GzipLevel}
		if cfg.Token != "" {
			o.Authorization = "Bearer " + cfg.Token
		}
		// /exec answers (counts, tables()) may be long; a write's error is short.
		o.ErrorBodyLimit = 64 << 20
		c, err := httpwrite.NewClient(o)
		if err != nil {
			return nil, fmt.Errorf("questdb: %w", err)
		}
		t.client = c
	}
	return t, nil
}

// Config returns the target's configuration after defaults.
func (t *Target) Config() Config { return t.cfg }

func (t *Target) querier(ctx context.Context) (querier, error) {
	if pq, ok := t.q.(*pgQuerier); ok && pq.broken() {
		pq.close()
		t.q = nil
	}
	if t.q != nil {
		return t.q, nil
	}
	if t.cfg.PG != "" {
		q, err := newPGQuerier(ctx, t.cfg.PG)
		if err != nil {
			return nil, err
		}
		t.q = q
	} else {
		t.q = &execQuerier{c: t.client}
	}
	return t.q, nil
}

// Overwrites reports whether tables are created with DEDUP UPSERT KEYS, which
// store a row with the timestamp and tags of one already there in its place
// (load.Hooks.Overwrites).
func (t *Target) Overwrites() bool { return t.cfg.Dedup }

// Drops reports whether the table is dropped under DropDB
// (load.Hooks.Drops): a use-case table is, before the first batch that
// names it; any other is QuestDB's own and is left alone.
func (t *Target) Drops(table string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.opts.DropDB {
		return false
	}
	return t.known[table] != nil || load.LookupPrefixed(t.cfg.Lookup, t.opts.TablePrefix, table) != nil
}

// Takes are the input formats the target loads itself, its Accepts and
// its command's --format help made of them (loadcli.Spec.Takes; the
// runner writes CSV as lines for it).
var Takes = []format.Format{format.ILP}

// Accepts takes line protocol only: both transports send ILP.
func (t *Target) Accepts(f format.Format) error {
	if !slices.Contains(Takes, f) {
		return fmt.Errorf("QuestDB is loaded over ILP, not %s (generate the data as ILP)", f)
	}
	return nil
}

// Prepare remembers opts and applies them (drop, abort-on-exist, create) to
// every table known now: opts.Tables and the use case's. Tables first named
// by a batch are prepared by the Writer before that batch is sent.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	t.mu.Lock()
	t.opts = opts
	t.prepared = true
	if p := opts.TablePrefix; p != "" {
		// The use case's tables (Config.UseCase) are loaded under the prefix.
		known := map[string]*schema.Table{}
		for n, tb := range t.known {
			c := *tb
			c.Name = p + n
			known[c.Name] = &c
		}
		t.known = known
	}
	for _, tb := range opts.Tables {
		t.known[tb.Name] = tb
	}
	names := make([]string, 0, len(t.known))
	for n := range t.known {
		names = append(names, n)
	}
	t.mu.Unlock()
	sort.Strings(names)
	if _, err := t.withQuerier(ctx); err != nil {
		return err
	}
	for _, n := range names {
		if err := t.ensure(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

func (t *Target) withQuerier(ctx context.Context) (querier, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.querier(ctx)
}

// ensure prepares table name once: drop (DropDB), refuse an existing one
// (AbortOnExist), create it with DEDUP (CreateDB, Dedup).
func (t *Target) ensure(ctx context.Context, name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err, ok := t.done[name]; ok {
		return err
	}
	err := t.ensureLocked(ctx, name)
	t.done[name] = err
	return err
}

func (t *Target) ensureLocked(ctx context.Context, name string) error {
	if !t.prepared {
		return nil
	}
	tb := t.known[name]
	if tb == nil {
		tb = load.LookupPrefixed(t.cfg.Lookup, t.opts.TablePrefix, name)
	}
	opts := t.opts
	if tb == nil {
		if opts.CreateDB || opts.DropDB || opts.AbortOnExist {
			fmt.Fprintf(t.cfg.Log, "questdb: table %q is not a tsload use-case table: QuestDB creates it on first write (WAL, no DEDUP); dropping it and abort-on-exist do not apply\n", name)
		}
		return nil
	}
	q, err := t.querier(ctx)
	if err != nil {
		return err
	}
	if opts.DropDB {
		if _, err := q.query(ctx, "DROP TABLE IF EXISTS "+quote(name)); err != nil {
			return err
		}
	}
	info, exists, err := t.tableInfo(ctx, name)
	if err != nil {
		return err
	}
	if exists && opts.AbortOnExist {
		return fmt.Errorf("questdb: table %q already exists (asked to abort if it exists)", name)
	}
	if !exists {
		if !opts.CreateDB {
			return nil // QuestDB auto-creates it on the first ILP write
		}
		if _, err := q.query(ctx, CreateTableSQL(tb, t.cfg.Dedup)); err != nil {
			return err
		}
		if info, exists, err = t.tableInfo(ctx, name); err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("questdb: table %q not listed by tables() after CREATE TABLE", name)
		}
	}
	if !info.wal {
		return fmt.Errorf("questdb: table %q exists and is not a WAL table: ILP/HTTP refuses to write it (drop it first)", name)
	}
	if t.cfg.Dedup && !info.dedup {
		return fmt.Errorf("questdb: table %q exists without DEDUP: a re-sent request could duplicate rows (drop it first to recreate it with DEDUP, or load without DEDUP)", name)
	}
	t.dedup[name] = info.dedup
	return nil
}

type tableInfo struct{ wal, dedup bool }

func (t *Target) tableInfo(ctx context.Context, name string) (tableInfo, bool, error) {
	rows, err := t.q.query(ctx, "SELECT walEnabled, dedup FROM tables() WHERE table_name = '"+strings.ReplaceAll(name, "'", "''")+"'")
	if err != nil {
		return tableInfo{}, false, err
	}
	if len(rows) == 0 {
		return tableInfo{}, false, nil
	}
	return tableInfo{wal: parseBool(rows[0][0]), dedup: parseBool(rows[0][1])}, true, nil
}

// dedupAll reports whether every table of b has DEDUP keys.
func (t *Target) dedupAll(b *load.Batch) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(b.Tables) == 0 {
		return false
	}
	for _, tr := range b.Tables {
		if !t.dedup[tr.Name] {
			return false
		}
	}
	return true
}

// tablesReady prepares the tables b names that this writer has not seen.
func (t *Target) tablesReady(ctx context.Context, seen map[string]bool, b *load.Batch) error {
	for i := range b.Tables {
		name := b.Tables[i].Name
		if seen[name] {
			continue
		}
		if err := t.ensure(ctx, name); err != nil {
			return err
		}
		seen[name] = true
	}
	return nil
}

// NewWriter opens worker's writer: an HTTP client sharing the target's
// connection pool, or one ILP/TCP connection.
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	version, err := t.ProtocolVersion(ctx)
	if err != nil {
		return nil, err
	}
	if t.cfg.Transport == TCP {
		w := &tcpWriter{t: t, seen: map[string]bool{}, version: version}
		if err := w.connect(ctx); err != nil {
			return nil, err
		}
		return w, nil
	}
	return &httpWriter{t: t, p: t.client.NewPoster(worker), seen: map[string]bool{}, version: version}, nil
}

// Count waits until the WAL of every named table is applied (writerTxn =
// sequencerTxn, not suspended), then returns count() per table; a table
// that does not exist counts 0. Over ILP/TCP, rows the server has received
// but not yet committed are not in the WAL yet: Await waits for them.
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	q, err := t.withQuerier(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.WALTimeout)
	defer cancel()
	for {
		applied, lag, _, err := t.walState(ctx, q, tables)
		if err != nil {
			return nil, err
		}
		if applied {
			return t.countTables(ctx, q, tables)
		}
		if err := t.pause(ctx, lag); err != nil {
			return nil, err
		}
	}
}

// Await (load.Hooks.Await) returns once every table of want holds at least its
// rows with its WAL applied. ILP over TCP acknowledges nothing and the
// server commits what it received some time later, so the wait ends as
// soon as the rows are there, and otherwise once nothing has changed (WAL
// sequence, counts) for Settle. Over HTTP a 2xx means the rows are in the
// WAL already: Await returns at once.
func (t *Target) Await(ctx context.Context, want map[string]int64) error {
	if t.cfg.Transport != TCP || len(want) == 0 {
		return nil
	}
	q, err := t.withQuerier(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.WALTimeout)
	defer cancel()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	last, lastChange := "", time.Now()
	for {
		applied, lag, sig, err := t.walState(ctx, q, names)
		if err != nil {
			return err
		}
		if applied {
			counts, err := t.countTables(ctx, q, names)
			if err != nil {
				return err
			}
			lag = lag[:0]
			for _, n := range names {
				if counts[n] < want[n] {
					lag = append(lag, fmt.Sprintf("%s has %d of %d rows", n, counts[n], want[n]))
				}
				sig += fmt.Sprintf("%s#%d;", n, counts[n])
			}
			if len(lag) == 0 {
				return nil
			}
		}
		if sig != last {
			last, lastChange = sig, time.Now()
		} else if time.Since(lastChange) >= t.cfg.Settle {
			return fmt.Errorf("questdb: nothing more arrived within %s: %s", t.cfg.Settle, strings.Join(lag, ", "))
		}
		if err := t.pause(ctx, lag); err != nil {
			return err
		}
	}
}

// walState reads wal_tables() for the named tables: whether every WAL is
// applied, what lags, and a signature of the sequencer positions (which
// moves while the server takes in rows). A suspended table is an error.
func (t *Target) walState(ctx context.Context, q querier, tables []string) (applied bool, lag []string, sig string, err error) {
	want := map[string]bool{}
	for _, n := range tables {
		want[t.FoldName(n)] = true
	}
	rows, err := q.query(ctx, "SELECT name, suspended, writerTxn, sequencerTxn, errorTag, errorMessage FROM wal_tables()")
	if err != nil {
		return false, nil, "", waitErr(ctx, t.cfg.WALTimeout, err)
	}
	applied = true
	var b strings.Builder
	for _, r := range rows {
		if !want[t.FoldName(r[0])] {
			continue
		}
		if parseBool(r[1]) {
			return false, nil, "", fmt.Errorf("questdb: table %q is suspended (WAL apply failed: %s %s); fix the cause, then ALTER TABLE %s RESUME WAL", r[0], r[4], r[5], quote(r[0]))
		}
		w, _ := strconv.ParseInt(r[2], 10, 64)
		s, _ := strconv.ParseInt(r[3], 10, 64)
		if w < s {
			applied = false
			lag = append(lag, fmt.Sprintf("%s writerTxn %d < sequencerTxn %d", r[0], w, s))
		}
		fmt.Fprintf(&b, "%s=%d;", r[0], s)
	}
	return applied, lag, b.String(), nil
}

// pause waits one polling interval, or returns why it cannot.
func (t *Target) pause(ctx context.Context, lag []string) error {
	select {
	case <-ctx.Done():
		return waitErr(ctx, t.cfg.WALTimeout, fmt.Errorf("WAL not applied or rows missing: %s", strings.Join(lag, ", ")))
	case <-time.After(50 * time.Millisecond):
		return nil
	}
}

// FoldName (load.Hooks.FoldName) is the key QuestDB keeps a table name
// under: its table names are case-insensitive (ILP lines of CPU and cpu
// write one table, named as the first line spelled it).
func (t *Target) FoldName(name string) string { return strings.ToLower(name) }

// countTables returns count() of each named table (0 for a missing one),
// matching names as QuestDB does, whatever their case.
func (t *Target) countTables(ctx context.Context, q querier, tables []string) (map[string]int64, error) {
	exist, err := q.query(ctx, "SELECT table_name FROM tables()")
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, r := range exist {
		has[t.FoldName(r[0])] = true
	}
	out := make(map[string]int64, len(tables))
	for _, n := range tables {
		if !has[t.FoldName(n)] {
			out[n] = 0
			continue
		}
		rows, err := q.query(ctx, "SELECT count() FROM "+quote(n))
		if err != nil && strings.Contains(err.Error(), "table does not exist") {
			// tables() lists a table ILP/TCP is still creating before a
			// query can open it (seen on 9.3.4): it holds no rows yet.
			out[n] = 0
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(rows) != 1 || len(rows[0]) != 1 {
			return nil, fmt.Errorf("questdb: count of %q: unexpected result %v", n, rows)
		}
		c, err := strconv.ParseInt(rows[0][0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("questdb: count of %q: %w", n, err)
		}
		out[n] = c
	}
	return out, nil
}

func waitErr(ctx context.Context, d time.Duration, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("questdb: waiting for WAL apply: gave up after %v: %w", d, err)
	}
	return err
}

// Close releases the query connection and idle HTTP connections.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Close()
	}
	if t.q != nil {
		err := t.q.close()
		t.q = nil
		return err
	}
	return nil
}
