// Package cnosdb is the CnosDB 2.x target: it writes line-protocol batches
// to /api/v1/write over HTTP (Basic auth, Content-Length always set,
// optional gzip, round-robin over Config.URLs), manages the database over
// /api/v1/sql and verifies with exact_count(*) (CnosDB 2.4.3 and later) or
// count(*) (earlier servers, where it counts each merged row once).
//
// What a /api/v1/write answer means. A refused batch is never counted. On
// CnosDB 2.4.2 a refused request writes nothing of itself, except when a
// field clashes with the type its table already holds (050014 "Apply engine
// failed"): the server applies a request per time bucket (vnode), and the
// rows in the other buckets are kept.
//
//	200                                          written
//	422 "Memory Exhausted Retry Later"/"timeout" nothing written: retryable
//	500 with an empty body                       retryable
//	network error                                retryable
//	413                                          fatal: lower the batch size or enable Gzip
//	422 040004 bad line, 050014 a field's type,  fatal, with the server's error_code and
//	030017 unknown database, 030034 a row older  error_message and a hint; the batch is
//	than the TTL, 010016 unknown user, tenant    not counted
//	or wrong password, 400 missing auth
//	any other 4xx or 5xx                         fatal
package cnosdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Config is the target's configuration.
type Config struct {
	httpwrite.Conn // where and how to connect (User defaults to root in load_cnosdb)
	Tenant         string
	DBName         string // overridden by PrepareOptions.DBName when set
	Precision      string // ms, us, ns
	// Database options passed through to CREATE DATABASE ... WITH.
	TTL, VnodeDuration string // durations as CnosDB writes them: "30d", "1d", "INF"
	Shards, Replica    int    // 0: server default
	// Log receives notes (the exact_count fallback); nil discards them.
	Log io.Writer
}

// Precisions accepted by CnosDB /api/v1/write (anything else would silently
// be taken as ns).
var Precisions = []string{"ms", "us", "ns"}

var reDuration = regexp.MustCompile(`^(?i:inf|[0-9]+\s*[a-z]+)$`)

// Validate checks the configuration.
func (c *Config) Validate() error {
	if err := c.Conn.Validate(); err != nil {
		return err
	}
	switch {
	case c.Precision != "ms" && c.Precision != "us" && c.Precision != "ns":
		return load.Settingf("invalid {Precision} %q (CnosDB accepts ms, us or ns; it would silently take anything else as ns)", c.Precision)
	case c.Tenant == "":
		return load.Settingf("empty {Tenant}")
	case c.TTL != "" && !reDuration.MatchString(c.TTL):
		return load.Settingf("invalid {TTL} %q (want a duration such as 30d, or INF)", c.TTL)
	case c.VnodeDuration != "" && !reDuration.MatchString(c.VnodeDuration):
		return load.Settingf("invalid {VnodeDuration} %q (want a duration such as 1d)", c.VnodeDuration)
	case c.Shards < 0:
		return load.Settingf("invalid {Shards} %d (want 0 for the server's default, or more)", c.Shards)
	case c.Replica < 0:
		return load.Settingf("invalid {Replica} %d (want 0 for the server's default, or more)", c.Replica)
	}
	return nil
}

// Target is a CnosDB server (or several behind Config.URLs).
type Target struct {
	cfg    Config
	client *httpwrite.Client
	sqlp   *httpwrite.Poster
	unit   time.Duration // of the lines' timestamps: Precision, parsed once (load.Hooks.LineUnit)
	// noExact: the server has no exact_count (learnt once, said once on
	// Log: verification and content verification both count).
	noExact atomic.Bool
}

var _ load.Target = (*Target)(nil)

// New checks cfg and returns the target. It does not contact the server.
func New(cfg Config) (*Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := cfg.Options()
	o.AlwaysBasicAuth = true
	// /metrics lists every database's vnodes: a server holding a few
	// hundred databases answers with more than the default 1 MiB
	// (footprint.go reads it whole).
	o.ErrorBodyLimit = 64 << 20
	client, err := httpwrite.NewClient(o)
	if err != nil {
		return nil, err
	}
	unit, err := format.ParseUnit(cfg.Precision)
	if err != nil {
		return nil, load.Settingf("invalid {Precision} %q: %v", cfg.Precision, err)
	}
	return &Target{cfg: cfg, client: client, sqlp: client.NewPoster(0), unit: unit}, nil
}

// Close releases idle connections.
func (t *Target) Close() error {
	t.client.Close()
	return nil
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ident quotes a SQL identifier unless it is a plain lower-case name.
func ident(s string) string {
	if plainIdent.MatchString(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// serverError is CnosDB's JSON error body.
type serverError struct {
	Code    string `json:"error_code"`
	Message string `json:"error_message"`
}

// describe renders an error answer: "422 [040004] message".
func describe(status int, body []byte) string {
	var e serverError
	if json.Unmarshal(body, &e) == nil && (e.Code != "" || e.Message != "") {
		return fmt.Sprintf("%d [%s] %s", status, e.Code, e.Message)
	}
	if len(body) == 0 {
		return fmt.Sprintf("%d (empty body)", status)
	}
	return fmt.Sprintf("%d %s", status, httpwrite.Snippet(body, 500))
}

// SQL runs one statement on db ("" for none) and returns the JSON rows.
func (t *Target) SQL(ctx context.Context, db, stmt string) ([]map[string]any, error) {
	return t.sqlOn(ctx, t.sqlp, db, stmt)
}

// sqlOn is SQL over poster p (a Poster serves one goroutine).
func (t *Target) sqlOn(ctx context.Context, p *httpwrite.Poster, db, stmt string) ([]map[string]any, error) {
	q := url.Values{"tenant": {t.cfg.Tenant}}
	if db != "" {
		q.Set("db", db)
	}
	res, err := p.Post(ctx, httpwrite.Request{
		Path: "/api/v1/sql", Query: q.Encode(), Body: []byte(stmt),
		Accept: "application/json", NoCompress: true,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	if res.Status != 200 {
		return nil, &sqlError{stmt: stmt, status: res.Status, desc: describe(res.Status, res.Body)}
	}
	if len(res.Body) == 0 {
		return nil, nil
	}
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(string(res.Body)))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("%s: unreadable answer: %v (%s)", stmt, err, httpwrite.Snippet(res.Body, 200))
	}
	return rows, nil
}

type sqlError struct {
	stmt   string
	status int
	desc   string
}

func (e *sqlError) Error() string { return fmt.Sprintf("%s: server answered %s", e.stmt, e.desc) }

// CreateStatement is the CREATE DATABASE statement Prepare sends.
func (t *Target) CreateStatement(db string) string {
	var with []string
	if t.cfg.TTL != "" {
		with = append(with, fmt.Sprintf("TTL '%s'", t.cfg.TTL))
	}
	if t.cfg.Shards > 0 {
		with = append(with, "SHARD "+strconv.Itoa(t.cfg.Shards))
	}
	if t.cfg.VnodeDuration != "" {
		with = append(with, fmt.Sprintf("VNODE_DURATION '%s'", t.cfg.VnodeDuration))
	}
	if t.cfg.Replica > 0 {
		with = append(with, "REPLICA "+strconv.Itoa(t.cfg.Replica))
	}
	s := "CREATE DATABASE IF NOT EXISTS " + ident(db)
	if len(with) > 0 {
		s += " WITH " + strings.Join(with, " ")
	}
	return s
}

func (t *Target) exists(ctx context.Context, db string) (bool, error) {
	rows, err := t.SQL(ctx, "", "SHOW DATABASES")
	if err != nil {
		return false, err
	}
	for _, r := range rows {
		for _, v := range r {
			if v == db {
				return true, nil
			}
		}
	}
	return false, nil
}

// Takes are the input formats the target loads itself, its Accepts and
// its command's --format help made of them (loadcli.Spec.Takes; the
// runner writes CSV as lines for it).
var Takes = []format.Format{format.ILP}

// Accepts takes line protocol only: CnosDB's write API reads nothing else.
func (t *Target) Accepts(f format.Format) error {
	if !slices.Contains(Takes, f) {
		return fmt.Errorf("CnosDB takes line protocol, not %s (generate the data as ILP)", f)
	}
	return nil
}

// Prepare drops (DropDB), checks (AbortOnExist) and creates
// (CreateDB, with TTL, Shards, VnodeDuration and Replica) the database.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	return httpwrite.PrepareDatabase(ctx, opts, &t.cfg.DBName, t.sqlp.BaseURL(), httpwrite.Database{
		Drop: func(ctx context.Context, db string) error {
			_, err := t.SQL(ctx, "", "DROP DATABASE IF EXISTS "+ident(db))
			return err
		},
		Exists: t.exists,
		Create: func(ctx context.Context, db string) error {
			_, err := t.SQL(ctx, "", t.CreateStatement(db))
			return err
		},
	})
}

// Count returns SELECT exact_count(*) per table. On a server without
// exact_count (before 2.4.3) it uses count(*), which there counts each row
// merged on (series, time) once, and says so once on Log (once per target,
// however many times it counts).
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tables))
	fn := "exact_count"
	if t.noExact.Load() {
		fn = "count"
	}
	for _, name := range tables {
		n, err := t.count(ctx, fn, name)
		var se *sqlError
		if err != nil && fn == "exact_count" && errors.As(err, &se) && strings.Contains(strings.ToLower(se.desc), "exact_count") {
			fn = "count"
			if !t.noExact.Swap(true) && t.cfg.Log != nil {
				fmt.Fprintf(t.cfg.Log, "note: the server has no exact_count (CnosDB before 2.4.3): verifying with count(*)\n")
			}
			n, err = t.count(ctx, fn, name)
		}
		if err != nil {
			return out, err
		}
		out[name] = n
	}
	return out, nil
}

func (t *Target) count(ctx context.Context, fn, table string) (int64, error) {
	stmt := fmt.Sprintf("SELECT %s(*) AS n FROM %s", fn, ident(table))
	rows, err := t.SQL(ctx, t.cfg.DBName, stmt)
	var se *sqlError
	if errors.As(err, &se) && strings.Contains(strings.ToLower(se.desc), "table not found") {
		return 0, nil // nothing was ever written to it
	}
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, fmt.Errorf("%s: want one row, got %d", stmt, len(rows))
	}
	switch v := rows[0]["n"].(type) {
	case json.Number:
		return v.Int64()
	default:
		return 0, fmt.Errorf("%s: unexpected n = %v", stmt, rows[0]["n"])
	}
}

// Overwrites: CnosDB stores a row with the series and time of one it holds
// in place of it, so loading rows already there adds fewer to the count
// (load.Hooks.Overwrites).
func (t *Target) Overwrites() bool { return true }

// ServerVersion is the version /api/v1/ping reports ("CnosDB 2.4.2,
// revision UNKNOWN").
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	res, err := t.sqlp.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/api/v1/ping", NoCompress: true})
	if err != nil {
		return "", err
	}
	var ping struct {
		Version string `json:"version"`
	}
	if res.Status != 200 || json.Unmarshal(res.Body, &ping) != nil || ping.Version == "" {
		return "", fmt.Errorf("/api/v1/ping answered %s", describe(res.Status, res.Body))
	}
	return "CnosDB " + ping.Version, nil
}

// NewWriter returns the writer of worker (it posts to URL worker % len(URLs)).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	q := url.Values{"db": {t.cfg.DBName}, "tenant": {t.cfg.Tenant}, "precision": {t.cfg.Precision}}
	return &Writer{p: t.client.NewPoster(worker), query: q.Encode(), gzip: t.cfg.Gzip}, nil
}

// Writer posts batches to /api/v1/write for one worker.
type Writer struct {
	p     *httpwrite.Poster
	query string
	gzip  bool
}

var _ load.Writer = (*Writer)(nil)

// Close does nothing: connections belong to the Target's client.
func (w *Writer) Close() error { return nil }

// Write posts b and interprets the answer (see the package documentation).
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, fmt.Errorf("cnosdb: the server takes line protocol, not %s", b.Format)
	}
	res, err := w.p.Post(ctx, httpwrite.Request{Path: "/api/v1/write", Query: w.query, Body: b.Data})
	if err != nil {
		return load.Ack{}, fmt.Errorf("cnosdb: %w", err)
	}
	return interpret(b, res.Status, res.Body, w.gzip)
}

// refusalHint says what to change after a fatal refusal ("" when the
// server's own words are all there is), naming settings as load.Settingf does.
func refusalHint(status int, body []byte) string {
	var e serverError
	json.Unmarshal(body, &e)
	msg := strings.ToLower(e.Message)
	switch {
	case strings.Contains(msg, "tenant") && strings.Contains(msg, "not found"):
		return "check {Tenant}"
	case strings.Contains(msg, "change password"):
		return "the user must change its password before it may write (ALTER USER ... SET PASSWORD)"
	case e.Code == "010016" || strings.Contains(msg, "authorization") || strings.Contains(msg, "auth"):
		return "check the user ({User}) and password ({Password})"
	case e.Code == "030034" || strings.Contains(msg, "expired bucket"):
		return "a row of the batch is older than the database's TTL (see {TTL}; nothing of the batch was written)"
	case e.Code == "050014" && strings.Contains(msg, "time column"):
		// A field or tag `time` (ILP allows it) collides with the table's
		// timestamp column; InfluxDB 3 says "reserved column" for it.
		hint := "a tag or field of the batch is named time: CnosDB reserves that name for the timestamp column (rename the tag or field; "
		if strings.Contains(msg, "apply engine failed") {
			return hint + "CnosDB applies a request per time bucket (vnode), so rows of this batch in other buckets may have been written (they are not counted))"
		}
		return hint + "nothing of the batch was written)"
	case e.Code == "050014" && strings.Contains(msg, "apply engine failed"):
		return "a field's type differs from the one the table already holds, or a tag and a field share a name; " +
			"CnosDB applies a request per time bucket (vnode), so rows of this batch in other buckets may have been written (they are not counted)"
	case e.Code == "050014":
		return "a field's type differs within the batch, or a tag and a field share a name (nothing of the batch was written)"
	case e.Code == "030017":
		return "the database does not exist ({CreateDB} creates it)"
	}
	return ""
}

func interpret(b *load.Batch, status int, body []byte, gzip bool) (load.Ack, error) {
	switch {
	case status >= 200 && status < 300:
		return load.Ack{Rows: b.Rows}, nil
	case status == 422 && (strings.Contains(string(body), "Memory Exhausted Retry Later") || strings.Contains(strings.ToLower(string(body)), "timeout")):
		return load.Ack{}, load.Retryable(fmt.Errorf("cnosdb: server busy (%s)", describe(status, body)))
	case status == 500 && len(strings.TrimSpace(string(body))) == 0:
		return load.Ack{}, load.Retryable(errors.New("cnosdb: server error (500 with an empty body)"))
	case status == 413:
		hint := " or enable {Gzip}"
		if gzip {
			hint = ""
		}
		return load.Ack{}, load.Settingf("cnosdb: request body too large (413): lower {BatchSize} (this batch has %d rows, %d bytes before compression)"+hint, b.Rows, len(b.Data))
	}
	if hint := refusalHint(status, body); hint != "" {
		// hint names settings as {Field} and holds no % verb.
		return load.Ack{}, load.Settingf("cnosdb: server refused the batch (%s): "+hint, describe(status, body))
	}
	return load.Ack{}, fmt.Errorf("cnosdb: server refused the batch (%s); nothing of it is counted as written", describe(status, body))
}
