// Package influx3test has two things for load_influx's v3 tests: the real
// InfluxDB 3 Core of scripts/start_influxdb.sh --version 3 (real.go:
// RealServer, private instances for kill -9 and server settings), and an
// in-process stand-in for what the real server cannot be made to do on
// demand (429 overloaded, 500 wal buffer full, the immutable tag set of the
// 3.0 pre-releases, showing the requests it received). The stand-in was
// built from InfluxDB 3's documented HTTP API and corrected against 3.6.0:
// TestConformance runs one session against both with the same expected
// answers, so it cannot drift. It is not InfluxDB 3: it keeps each table's
// columns and row keys (series and time), not values, writes are visible at
// once unless SetNoSyncLag (no WAL flush wait, no Parquet files, no query file
// limit), and it understands only the SQL the loader sends.
//
// Emulated behaviour:
//   - GET/POST /ping: 200 with X-Influxdb-Version and X-Influxdb-Build
//     headers and a JSON body; GET /health: 200 "OK".
//   - With a token set (SetToken), every endpoint wants "Authorization:
//     Bearer <token>" or "Token <token>": 401 with an empty body otherwise.
//   - POST /api/v3/write_lp?db=&precision=&accept_partial=&no_sync=:
//     accept_partial defaults to true; 204 when every line is written. A
//     refused line (unparsable; a column whose kind or type differs from
//     its first write; a limit) with accept_partial=false refuses the
//     request, nothing written: 400 {"error": "line protocol parsing
//     error", "data": {"error_message", "line_number", "original_line"}};
//     with accept_partial=true the valid lines are written and the answer
//     is 400 {"error": "partial write of line protocol occurred", "data":
//     [...]}, or 422 when a limit is among the refusals. line_number counts
//     the lines less blank and comment lines, from 1; original_line is cut
//     to 20 bytes and, as on the server, taken from the request's lines
//     counted with the blank ones.
//   - The database is created by its first write. Limits: databases
//     (DefaultMaxDatabases, 422 {"error": "Adding a new database would
//     exceed limit of N databases", "data": null}), tables (all databases),
//     columns per table (time and tags included).
//   - Content-Encoding gzip is decompressed; a body over the request limit
//     (DefaultMaxRequestBytes, compressed or decompressed) is 500 (not 413,
//     as in 3.6.0) "max request size (N bytes) exceeded".
//   - /write and /api/v2/write write too (accept_partial=false, as on the
//     server); Requests records each write's endpoint, query and headers.
//   - /api/v3/configure/database: GET ?format=json lists
//     [{"iox::database": name}], POST {"db": name} creates (409 when it
//     exists), DELETE ?db=name deletes (404 when missing).
//   - POST /api/v3/query_sql {"db", "q", "format": "json"} (or GET with the
//     same query parameters) answers SELECT COUNT(*) [AS n] FROM t with the
//     distinct (series, time) keys of t: [{"n": N}]; a missing table is 500
//     "query error: ... table 'public.iox.t' not found", a missing database
//     404.
//   - SetImmutableTags emulates the 3.0 pre-releases (December 2024 to March
//     2025) that refused a tag not in a table's first write: "Detected a new
//     tag 'k' in write. The tag set is immutable on first write to the
//     table." Current releases add the tag.
//   - On demand: Overloaded (429 "this service is overloaded, please try
//     again later"), WALFull (500 "... wal buffer full ..."), SetNoSyncLag
//     and SetSyncLag (rows countable only a while after their answer).
package influx3test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
)

// Defaults of InfluxDB 3 Core.
const (
	Version                = "3.6.0"
	DefaultMaxDatabases    = 5
	DefaultMaxTables       = 4000
	DefaultMaxColumns      = 500
	DefaultMaxRequestBytes = 10 << 20
)

// Column kinds as the server names them in its messages.
const (
	kindTag       = "iox::column_type::tag"
	kindTime      = "iox::column_type::timestamp"
	kindFloat     = "iox::column_type::field::float"
	kindInteger   = "iox::column_type::field::integer"
	kindUInteger  = "iox::column_type::field::uinteger"
	kindString    = "iox::column_type::field::string"
	kindBoolean   = "iox::column_type::field::boolean"
	internalDB    = "_internal"
	partialMsg    = "partial write of line protocol occurred"
	parseErrorMsg = "parsing failed for write_lp endpoint"
)

// Server is a running stand-in; Close it when done.
type Server struct {
	*httptest.Server

	mu                               sync.Mutex
	token                            string
	maxDBs, maxTables, maxColumns    int
	maxBytes                         int
	overloaded, walFull              int
	immutableTags                    bool
	noSyncLag, syncLag               time.Duration
	dbs                              map[string]*database
	requests                         []Request
	writes, refusedWrites, linesSeen int
}

type database struct {
	tables map[string]*table
}

type table struct {
	columns map[string]string    // name -> kind
	keys    map[string]time.Time // row key -> when it becomes countable
}

// New starts a stand-in server.
func New() *Server {
	s := &Server{maxDBs: DefaultMaxDatabases, maxTables: DefaultMaxTables, maxColumns: DefaultMaxColumns,
		maxBytes: DefaultMaxRequestBytes, dbs: map[string]*database{internalDB: {tables: map[string]*table{}}}}
	mux := http.NewServeMux()
	mux.HandleFunc("/ping", s.auth(s.ping))
	mux.HandleFunc("/health", s.auth(s.health))
	mux.HandleFunc("/api/v1/health", s.auth(s.health))
	mux.HandleFunc("/api/v3/write_lp", s.auth(s.writeLP))
	mux.HandleFunc("/write", s.auth(s.writeLegacy))
	mux.HandleFunc("/api/v2/write", s.auth(s.writeLegacy))
	mux.HandleFunc("/api/v3/configure/database", s.auth(s.database))
	mux.HandleFunc("/api/v3/query_sql", s.auth(s.querySQL))
	s.Server = httptest.NewServer(mux)
	return s
}

// SetToken requires this token on every request ("" turns auth off).
func (s *Server) SetToken(t string) { s.mu.Lock(); s.token = t; s.mu.Unlock() }

// SetImmutableTags makes a table's tag set fixed by its first write.
func (s *Server) SetImmutableTags(on bool) { s.mu.Lock(); s.immutableTags = on; s.mu.Unlock() }

// Overloaded makes the next n writes answer 429.
func (s *Server) Overloaded(n int) { s.mu.Lock(); s.overloaded = n; s.mu.Unlock() }

// WALFull makes the next n writes answer 500 wal buffer full.
func (s *Server) WALFull(n int) { s.mu.Lock(); s.walFull = n; s.mu.Unlock() }

// SetNoSyncLag makes the rows of a no_sync write countable only lag after
// their answer (3.6.0 does this by a varying amount under load; it cannot
// be set there).
func (s *Server) SetNoSyncLag(lag time.Duration) { s.mu.Lock(); s.noSyncLag = lag; s.mu.Unlock() }

// SetSyncLag makes the rows of a write that waited for the write-ahead log
// countable only lag after their answer (3.6.0 counted 2,400 of 2,880 such
// rows right after a load on a busy machine, and all of them a moment
// later).
func (s *Server) SetSyncLag(lag time.Duration) { s.mu.Lock(); s.syncLag = lag; s.mu.Unlock() }

// visible counts the keys countable at now.
func (t *table) visible(now time.Time) int64 {
	var n int64
	for _, at := range t.keys {
		if !at.After(now) {
			n++
		}
	}
	return n
}

// Request is one write request as the stand-in received it.
type Request struct {
	Path, Query, ContentEncoding, Authorization string
}

// Requests returns the write requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Rows returns the distinct (series, time) keys of table in db.
func (s *Server) Rows(db, tbl string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.dbs[db]; d != nil {
		if t := d.tables[tbl]; t != nil {
			return t.visible(time.Now())
		}
	}
	return 0
}

// Databases returns the database names (without _internal), sorted.
func (s *Server) Databases() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name := range s.dbs {
		if name != internalDB {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		token := s.token
		s.mu.Unlock()
		if token != "" {
			got := r.Header.Get("Authorization")
			if got != "Bearer "+token && got != "Token "+token {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		h(w, r)
	}
}

func (s *Server) ping(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Influxdb-Build", "Core")
	w.Header().Set("X-Influxdb-Version", Version)
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, `{"product_name":"InfluxDB 3 Core","version":%q,"revision":"standin","process_id":"00000000-0000-0000-0000-000000000000"}`, Version)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "OK")
}

func text(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

func jsonError(w http.ResponseWriter, status int, msg string, data any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
		Data  any    `json:"data,omitempty"`
	}{msg, data})
	w.Write(body)
}

// lineError is one refused line as the server serialises it.
type lineError struct {
	ErrorMessage string `json:"error_message"`
	LineNumber   int    `json:"line_number"`
	OriginalLine string `json:"original_line"`
}

func truncate20(s string) string {
	if len(s) <= 20 {
		return s
	}
	n := 20
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

var precisions = map[string]int64{
	"auto": 0, "s": 1e9, "second": 1e9, "ms": 1e6, "millisecond": 1e6,
	"us": 1e3, "u": 1e3, "microsecond": 1e3, "ns": 1, "n": 1, "nanosecond": 1,
}

func (s *Server) writeLP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "unsupported method", nil)
		return
	}
	q := r.URL.Query()
	if r.URL.RawQuery == "" || !q.Has("db") {
		text(w, http.StatusBadRequest, "serde error: missing field `db`")
		return
	}
	acceptPartial := true
	for _, name := range []string{"accept_partial", "no_sync"} {
		if v := q.Get(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil || (v != "true" && v != "false") {
				text(w, http.StatusBadRequest, "serde error: provided string was not `true` or `false`")
				return
			}
			if name == "accept_partial" {
				acceptPartial = b
			}
		}
	}
	s.write(w, r, q.Get("db"), q.Get("precision"), acceptPartial, q.Get("no_sync") == "true")
}

// writeLegacy is /write and /api/v2/write: the database is db (1.x) or
// bucket (2.x); the server does not accept partial writes there.
func (s *Server) writeLegacy(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	db := q.Get("db")
	if db == "" {
		db = q.Get("bucket")
	}
	if db == "" {
		text(w, http.StatusBadRequest, "missing query parameter 'db'")
		return
	}
	s.write(w, r, db, q.Get("precision"), false, false)
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, db, precision string, acceptPartial, noSync bool) {
	s.mu.Lock()
	visibleAt := time.Now()
	if noSync {
		visibleAt = visibleAt.Add(s.noSyncLag)
	} else {
		visibleAt = visibleAt.Add(s.syncLag)
	}
	s.requests = append(s.requests, Request{Path: r.URL.Path, Query: r.URL.RawQuery, ContentEncoding: r.Header.Get("Content-Encoding"), Authorization: r.Header.Get("Authorization")})
	s.mu.Unlock()
	if precision == "" {
		precision = "auto"
	}
	mult, ok := precisions[precision]
	if !ok {
		text(w, http.StatusBadRequest, "serde error: unknown variant `"+precision+"`, expected one of `auto`, `s`, `second`, `millisecond`, `ms`, `microsecond`, `u`, `us`, `n`, `nanosecond`, `ns`")
		return
	}
	if strings.ContainsAny(db, "/\\\"' ") || db == "" {
		jsonError(w, http.StatusBadRequest, "invalid character in database or rp name: must be ASCII, containing only letters, numbers, underscores, or hyphens", nil)
		return
	}
	body, status, msg := s.readBody(r)
	if status != 0 {
		text(w, status, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if s.overloaded > 0 {
		s.overloaded--
		text(w, http.StatusTooManyRequests, "this service is overloaded, please try again later")
		return
	}
	if s.walFull > 0 {
		s.walFull--
		text(w, http.StatusInternalServerError, "write buffer error: error from wal: wal buffer full with 10000 ops")
		return
	}
	if !utf8.Valid(body) {
		text(w, http.StatusInternalServerError, "body content is not valid utf8: invalid utf-8 sequence")
		return
	}
	d := s.dbs[db]
	if d == nil {
		if len(s.dbs)-1 >= s.maxDBs {
			jsonError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Adding a new database would exceed limit of %d databases", s.maxDBs), nil)
			return
		}
		d = &database{tables: map[string]*table{}}
	}
	// Work on a copy of the schema: a refused request changes nothing.
	schema := make(map[string]map[string]string, len(d.tables))
	for name, t := range d.tables {
		cols := make(map[string]string, len(t.columns))
		for c, k := range t.columns {
			cols[c] = k
		}
		schema[name] = cols
	}
	tables := s.tableCount()
	type row struct{ table, key string }
	var rows []row
	var errs []lineError
	naive := strings.Split(string(body), "\n")
	dataLine := 0
	now := time.Now().UnixNano()
	for _, raw := range naive {
		line := strings.TrimLeft(raw, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		dataLine++
		s.linesSeen++
		tbl, key, err := parseAndValidate(line, schema, &tables, s.maxTables, s.maxColumns, s.immutableTags, mult, now)
		if err != nil {
			le := lineError{ErrorMessage: err.Error(), LineNumber: dataLine, OriginalLine: truncate20(naive[dataLine-1])}
			if !acceptPartial {
				s.refusedWrites++
				jsonError(w, http.StatusBadRequest, parseErrorMsg, le)
				return
			}
			errs = append(errs, le)
			continue
		}
		rows = append(rows, row{tbl, key})
	}
	if dataLine == 0 {
		text(w, http.StatusBadRequest, "incoming write was empty")
		return
	}
	// Commit the schema and the rows of the valid lines.
	s.dbs[db] = d
	for name, cols := range schema {
		t := d.tables[name]
		if t == nil {
			t = &table{keys: map[string]time.Time{}}
			d.tables[name] = t
		}
		t.columns = cols
	}
	for _, rw := range rows {
		keys := d.tables[rw.table].keys
		if at, ok := keys[rw.key]; !ok || at.After(visibleAt) {
			keys[rw.key] = visibleAt
		}
	}
	if len(errs) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	status = http.StatusBadRequest
	for _, e := range errs {
		if strings.HasPrefix(e.ErrorMessage, "Update to schema would exceed number of") || strings.HasPrefix(e.ErrorMessage, "Adding a new database would exceed limit of") {
			status = http.StatusUnprocessableEntity
		}
	}
	jsonError(w, status, partialMsg, errs)
}

func (s *Server) tableCount() int {
	n := 0
	for _, d := range s.dbs {
		n += len(d.tables)
	}
	return n
}

// readBody reads (and gunzips) the body within the request limit; a
// non-zero status is the error answer.
func (s *Server) readBody(r *http.Request) ([]byte, int, string) {
	s.mu.Lock()
	limit := s.maxBytes
	s.mu.Unlock()
	tooLarge := fmt.Sprintf("max request size (%d bytes) exceeded", limit)
	raw, err := io.ReadAll(io.LimitReader(r.Body, int64(limit)+1))
	if err != nil {
		return nil, http.StatusInternalServerError, "client disconnected"
	}
	if len(raw) > limit {
		return nil, http.StatusInternalServerError, tooLarge
	}
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
		return raw, 0, ""
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, http.StatusInternalServerError, "error decoding gzip stream: " + err.Error()
		}
		out, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
		if err != nil {
			return nil, http.StatusInternalServerError, "error decoding gzip stream: " + err.Error()
		}
		if len(out) > limit {
			return nil, http.StatusInternalServerError, tooLarge
		}
		return out, 0, ""
	default:
		return nil, http.StatusBadRequest, "unacceptable content-encoding: " + enc
	}
}

// parseAndValidate parses one line and checks (and extends) the schema; it
// returns the table and the row key (sorted tag set and time).
func parseAndValidate(line string, schema map[string]map[string]string, tables *int, maxTables, maxColumns int, immutableTags bool, mult, now int64) (string, string, error) {
	dec := lineprotocol.NewDecoderWithBytes([]byte(line))
	if !dec.Next() {
		return "", "", fmt.Errorf("no line")
	}
	m, err := dec.Measurement()
	if err != nil {
		return "", "", err
	}
	tbl := string(m)
	cols, ok := schema[tbl]
	if !ok {
		if *tables >= maxTables {
			return "", "", fmt.Errorf("Update to schema would exceed number of tables limit: attempted to create table but already have %d table(s) (limit: %d)", *tables, maxTables)
		}
		cols = map[string]string{}
	}
	add := func(name, kind string) error {
		if have, ok := cols[name]; ok {
			if have != kind {
				return fmt.Errorf("invalid column type for column '%s', expected %s, got %s", name, have, kind)
			}
			return nil
		}
		if len(cols) >= maxColumns {
			return fmt.Errorf("Update to schema would exceed number of columns per table limit of %d columns", maxColumns)
		}
		cols[name] = kind
		return nil
	}
	// Stage new columns so that a refused line adds none.
	staged := make(map[string]string, len(cols)+8)
	for k, v := range cols {
		staged[k] = v
	}
	cols = staged
	var tags []string
	for {
		k, v, err := dec.NextTag()
		if err != nil {
			return "", "", err
		}
		if k == nil {
			break
		}
		if _, have := cols[string(k)]; !have && ok && immutableTags {
			return "", "", fmt.Errorf("Detected a new tag '%s' in write. The tag set is immutable on first write to the table.", k)
		}
		if err := add(string(k), kindTag); err != nil {
			return "", "", err
		}
		tags = append(tags, string(k)+"="+string(v))
	}
	fields := 0
	for {
		k, v, err := dec.NextField()
		if err != nil {
			return "", "", err
		}
		if k == nil {
			break
		}
		kind := kindFloat
		switch v.Kind() {
		case lineprotocol.Int:
			kind = kindInteger
		case lineprotocol.Uint:
			kind = kindUInteger
		case lineprotocol.String:
			kind = kindString
		case lineprotocol.Bool:
			kind = kindBoolean
		}
		if err := add(string(k), kind); err != nil {
			return "", "", err
		}
		fields++
	}
	tsb, err := dec.TimeBytes()
	if err != nil {
		return "", "", err
	}
	ts := now
	if len(tsb) > 0 {
		n, err := strconv.ParseInt(string(tsb), 10, 64)
		if err != nil {
			return "", "", fmt.Errorf("invalid timestamp %q", tsb)
		}
		if mult == 0 {
			mult = guessMultiplier(n)
		}
		ts = n * mult
	}
	if err := add("time", kindTime); err != nil {
		return "", "", err
	}
	if dec.Next() {
		return "", "", fmt.Errorf("more than one line")
	}
	if !ok {
		*tables++
	}
	schema[tbl] = cols
	sort.Strings(tags)
	return tbl, strings.Join(tags, ",") + " " + strconv.FormatInt(ts, 10), nil
}

// guessMultiplier is precision=auto: the timestamp's magnitude decides.
func guessMultiplier(n int64) int64 {
	if n < 0 {
		n = -n
	}
	switch v := n / 1e9; {
	case v < 5:
		return 1e9
	case v < 5000:
		return 1e6
	case v < 5_000_000:
		return 1e3
	}
	return 1
}

func (s *Server) database(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		names := make([]string, 0, len(s.dbs))
		for name := range s.dbs {
			names = append(names, name)
		}
		sort.Strings(names)
		rows := make([]map[string]string, 0, len(names))
		for _, n := range names {
			rows = append(rows, map[string]string{"iox::database": n})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rows)
	case http.MethodPost:
		var req struct {
			DB string `json:"db"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			text(w, http.StatusBadRequest, "serde json error: "+err.Error())
			return
		}
		if req.DB == "" || strings.ContainsAny(req.DB, "/\\\"' ") {
			jsonError(w, http.StatusBadRequest, "invalid character in database or rp name: must be ASCII, containing only letters, numbers, underscores, or hyphens", nil)
			return
		}
		if s.dbs[req.DB] != nil {
			text(w, http.StatusConflict, "attempted to create a resource that already exists")
			return
		}
		if len(s.dbs)-1 >= s.maxDBs {
			jsonError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Adding a new database would exceed limit of %d databases", s.maxDBs), nil)
			return
		}
		s.dbs[req.DB] = &database{tables: map[string]*table{}}
		w.WriteHeader(http.StatusOK)
	case http.MethodDelete:
		db := r.URL.Query().Get("db")
		if db == "" {
			text(w, http.StatusBadRequest, "missing query parameters 'db'")
			return
		}
		if db == internalDB {
			text(w, http.StatusInternalServerError, "cannot delete internal db")
			return
		}
		if s.dbs[db] == nil {
			text(w, http.StatusNotFound, "the requested resource was not found: "+db)
			return
		}
		delete(s.dbs, db)
		w.WriteHeader(http.StatusOK)
	default:
		jsonError(w, http.StatusMethodNotAllowed, "unsupported method", nil)
	}
}

var countSQL = regexp.MustCompile(`(?i)^\s*SELECT\s+COUNT\(\*\)(\s+AS\s+("?)([A-Za-z_][A-Za-z0-9_]*)("?))?\s+FROM\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\s*;?\s*$`)

func (s *Server) querySQL(w http.ResponseWriter, r *http.Request) {
	var req struct {
		DB     string `json:"db"`
		Q      string `json:"q"`
		Format string `json:"format"`
	}
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		req.DB, req.Q, req.Format = q.Get("db"), q.Get("q"), q.Get("format")
	case http.MethodPost:
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			text(w, http.StatusBadRequest, "serde json error: "+err.Error())
			return
		}
	default:
		jsonError(w, http.StatusMethodNotAllowed, "unsupported method", nil)
		return
	}
	if req.DB == "" || req.Q == "" {
		text(w, http.StatusBadRequest, "missing query parameters 'db' and 'q'")
		return
	}
	if req.Format != "" && req.Format != "json" {
		text(w, http.StatusBadRequest, "the stand-in answers format json only")
		return
	}
	m := countSQL.FindStringSubmatch(req.Q)
	if m == nil {
		text(w, http.StatusBadRequest, "the stand-in understands only SELECT COUNT(*) [AS n] FROM t")
		return
	}
	alias := "count(*)"
	if m[3] != "" {
		alias = m[3]
	}
	tbl := m[5]
	if strings.HasPrefix(tbl, `"`) {
		tbl = strings.ReplaceAll(tbl[1:len(tbl)-1], `""`, `"`)
	}
	s.mu.Lock()
	d := s.dbs[req.DB]
	var n int
	var found bool
	if d != nil {
		if t := d.tables[tbl]; t != nil {
			n, found = int(t.visible(time.Now())), true
		}
	}
	s.mu.Unlock()
	switch {
	case d == nil:
		jsonError(w, http.StatusNotFound, "query error: database not found: "+req.DB, nil)
	case !found:
		text(w, http.StatusInternalServerError, fmt.Sprintf("query error: error while planning query: Error during planning: table 'public.iox.%s' not found", tbl))
	default:
		w.Header().Set("Content-Type", "application/json")
		body, _ := json.Marshal([]map[string]int{{alias: n}})
		w.Write(body)
	}
}
