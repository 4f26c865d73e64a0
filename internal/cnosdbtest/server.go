// Package cnosdbtest holds what load_cnosdb's tests need: the local real
// CnosDB server (RealURL) and second instances of it started through
// scripts/start_cnosdb.sh (StartInstance), and an in-process stand-in (New)
// for the few answers a real server cannot be made to give on demand:
// memory pressure, write timeouts, a 500 with an empty body, a delayed
// answer, an exact_count function (CnosDB 2.4.3 and later; the server the
// project runs is 2.4.2).
//
// The stand-in is not CnosDB: it keeps row keys only (series and time) and
// understands only the SQL the loader sends. Every answer below was checked
// against CnosDB 2.4.2 (the tests in this package run both where a real
// server is up):
//   - Authorization: Basic is mandatory on write and sql: none is 400
//     error_code 000000 `Missing request header "authorization"`, a
//     malformed one 400 040006. With auth off (the default) any password is
//     taken but the user must exist (422 010016 "The user X not found");
//     SetUsers turns auth on (422 010016 "Access denied ..." for a wrong
//     user or password).
//   - Success is 200 with an empty body; an empty write body too.
//   - Errors are {"error_code":"NNNNNN","error_message":"..."}: a bad line
//     422 040004 "Error parsing message: ..."; a field whose type differs
//     from the table's (or a tag named like a field) 422 050014; an unknown
//     database 422 030017; an unknown tenant 422 010016; a body that is not
//     gzip 400 040013. A refused request writes nothing of itself, with one
//     exception: the server applies a request per time bucket (vnode,
//     VNODE_DURATION, default a year), so when a field clashes with the type
//     its table already holds ("Apply engine failed", 050014) the rows in
//     the other buckets are written. Shards are not modelled.
//   - A request without Content-Length is 500 with an empty body; a body
//     over BodyLimit (compressed size) is 413 with an empty body.
//   - Rows are merged on (measurement, tag set, time), and count(*) counts
//     them once.
//   - A row in a time bucket (VNODE_DURATION, default a year) that ended
//     more than the database's TTL ago refuses its request: 422 030034
//     "Operation not support: create expired bucket".
//   - A write without db goes to "public", which always exists.
//   - SQL: CREATE DATABASE [IF NOT EXISTS] d [WITH ...] (the options are kept
//     verbatim, see Options), DROP DATABASE [IF EXISTS] d, SHOW DATABASES,
//     SELECT count(*) AS n FROM t (422 010001 "Table not found, ..." for a
//     table never written), SELECT exact_count(*) AS n FROM t (422 010001
//     "Invalid function 'exact_count'" unless SetExactCount). JSON array
//     answers with Accept: application/json, CSV otherwise; an empty
//     result is an empty body.
package cnosdbtest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
)

// Error codes CnosDB 2.4.2 answers with (Memory and Timeout are the
// stand-in's own: those answers could not be provoked on a real server).
const (
	CodeAuthMissing    = "000000"
	CodeAuthMalformed  = "040006"
	CodeAuth           = "010016" // unknown user or tenant, wrong password
	CodeBadLine        = "040004"
	CodeFieldType      = "050014"
	CodeDecode         = "040013"
	CodeDBNotFound     = "030017"
	CodeDBExists       = "030018"
	CodeExpired        = "030034" // a row older than the database's TTL
	CodePlanning       = "010001" // table not found, unknown function
	CodeSQLParse       = "010009"
	CodeMemory         = "050001"
	CodeTimeout        = "050002"
	DefaultBodyLimit   = 160 << 20
	MemoryExhaustedMsg = "Memory Exhausted Retry Later"
)

// Server is a running stand-in. Set the knobs before or between requests
// with the methods; fields are guarded by the server's lock.
type Server struct {
	*httptest.Server

	mu              sync.Mutex
	users           map[string]string // nil: auth off, only root exists
	bodyLimit       int64
	memoryExhausted int
	timeouts        int
	emptyErrors     int
	exactCount      bool
	dbs             map[string]*database
	writes, refused int
	delay           time.Duration
}

type database struct {
	options string
	tables  map[string]*table
	// ttl and bucket (VNODE_DURATION, default 365 days) from the options: a
	// write touching a bucket that ended more than ttl ago is refused.
	ttl, bucket time.Duration
}

type table struct {
	keys    map[string]struct{}
	columns map[string]kind
}

// kind is a column's kind: a tag or a field's value type.
type kind byte

const (
	kindTag kind = iota + 1
	kindFloat
	kindInt
	kindUint
	kindString
	kindBool
)

// name is how CnosDB names a field kind in "Expected ... column".
func (k kind) name() string {
	return [...]string{"", "tag", "f64", "i64", "u64", "string", "bool"}[k]
}

// New starts a stand-in server; Close it when done.
func New() *Server {
	s := &Server{bodyLimit: DefaultBodyLimit, dbs: map[string]*database{}}
	s.dbs["public"] = newDatabase("")
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/ping", s.ping)
	mux.HandleFunc("/api/v1/write", s.write)
	mux.HandleFunc("/api/v1/sql", s.sql)
	s.Server = httptest.NewServer(mux)
	return s
}

var (
	reTTL    = regexp.MustCompile(`(?i)\bTTL\s+'?([0-9]+)\s*([a-z]+)'?`)
	reVnode  = regexp.MustCompile(`(?i)\bVNODE_DURATION\s+'?([0-9]+)\s*([a-z]+)'?`)
	durUnits = map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute, "s": time.Second}
)

// optionDuration reads a WITH option such as TTL '10d' (0 when absent or INF).
func optionDuration(re *regexp.Regexp, options string) time.Duration {
	m := re.FindStringSubmatch(options)
	if m == nil {
		return 0
	}
	var n int64
	fmt.Sscan(m[1], &n)
	return time.Duration(n) * durUnits[strings.ToLower(m[2])]
}

func newDatabase(options string) *database {
	d := &database{options: options, tables: map[string]*table{}, bucket: 365 * 24 * time.Hour}
	d.ttl = optionDuration(reTTL, options)
	if b := optionDuration(reVnode, options); b > 0 {
		d.bucket = b
	}
	return d
}

// bucketOf is the start of the time bucket (vnode) that holds ts. Shards
// (several vnodes per bucket, by series) are not modelled.
func (d *database) bucketOf(ts int64) int64 {
	b := int64(d.bucket)
	return ts - ((ts%b)+b)%b
}

// expired reports whether a row at ts falls in a bucket past the TTL.
func (d *database) expired(ts int64, now time.Time) bool {
	if d.ttl <= 0 {
		return false
	}
	return d.bucketOf(ts)+int64(d.bucket) < now.Add(-d.ttl).UnixNano()
}

// SetUsers turns auth on with these user:password pairs (nil: auth off,
// where any password is taken for the one user, root).
func (s *Server) SetUsers(users map[string]string) { s.mu.Lock(); s.users = users; s.mu.Unlock() }

// SetBodyLimit sets the 413 limit on the (compressed) request body.
func (s *Server) SetBodyLimit(n int64) { s.mu.Lock(); s.bodyLimit = n; s.mu.Unlock() }

// MemoryExhausted makes the next n writes answer 422 Memory Exhausted Retry Later.
func (s *Server) MemoryExhausted(n int) { s.mu.Lock(); s.memoryExhausted = n; s.mu.Unlock() }

// Timeouts makes the next n writes answer 422 with a timeout message.
func (s *Server) Timeouts(n int) { s.mu.Lock(); s.timeouts = n; s.mu.Unlock() }

// EmptyErrors makes the next n writes answer 500 with an empty body.
func (s *Server) EmptyErrors(n int) { s.mu.Lock(); s.emptyErrors = n; s.mu.Unlock() }

// SetExactCount makes exact_count(*) known, as on CnosDB 2.4.3 and later.
func (s *Server) SetExactCount(on bool) { s.mu.Lock(); s.exactCount = on; s.mu.Unlock() }

// SetDelay delays every write answer (for timeouts).
func (s *Server) SetDelay(d time.Duration) { s.mu.Lock(); s.delay = d; s.mu.Unlock() }

// Stats returns the writes accepted and refused so far (refusals counted
// are those after the auth and body checks: bad lines, field types,
// unknown database or tenant, and the on-demand errors).
func (s *Server) Stats() (writes, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes, s.refused
}

// Rows returns the distinct rows of db.t (-1 when either is missing).
func (s *Server) Rows(db, t string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dbs[db]
	if d == nil || d.tables[t] == nil {
		return -1
	}
	return int64(len(d.tables[t].keys))
}

// Options returns the WITH options a database was created with ("" if none;
// ok false if the database does not exist).
func (s *Server) Options(db string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dbs[db]
	if d == nil {
		return "", false
	}
	return d.options, true
}

func (s *Server) ping(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"status":"healthy","version":"2.4.2, cnosdbtest stand-in"}`)
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error_code": code, "error_message": msg})
}

// auth checks the Basic header: false when the request was answered.
func (s *Server) auth(w http.ResponseWriter, r *http.Request) bool {
	h := r.Header.Get("Authorization")
	if h == "" {
		fail(w, 400, CodeAuthMissing, `Missing request header "authorization"`)
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	user, pass, ok := strings.Cut(string(raw), ":")
	if !strings.HasPrefix(h, "Basic ") || err != nil || !ok {
		fail(w, 400, CodeAuthMalformed, "Parse auth, malformed basic auth encoding: "+h)
		return false
	}
	s.mu.Lock()
	users := s.users
	s.mu.Unlock()
	switch want, found := users[user]; {
	case users == nil && user != "root":
		fail(w, 422, CodeAuth, fmt.Sprintf("Auth error: The user %s not found", user))
		return false
	case users != nil && (!found || want != pass):
		fail(w, 422, CodeAuth, fmt.Sprintf("Auth error: Access denied for user '%s' (using xxx) username or password invalid", user))
		return false
	}
	if t := r.URL.Query().Get("tenant"); t != "" && t != "cnosdb" {
		s.refuse(w, 422, CodeAuth, fmt.Sprintf("Auth error: The tenant %s not found", t))
		return false
	}
	return true
}

// post is what /api/v1/write and /api/v1/sql check first: a POST (405
// otherwise), the credentials, then the body (see body). ok is false when
// it has answered the request.
func (s *Server) post(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.WriteHeader(405)
		return nil, false
	}
	if !s.auth(w, r) {
		return nil, false
	}
	return s.body(w, r)
}

// body reads the request body, enforcing Content-Length and the limit.
func (s *Server) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength < 0 {
		w.WriteHeader(500) // chunked bodies are refused with an empty 500
		return nil, false
	}
	s.mu.Lock()
	limit := s.bodyLimit
	s.mu.Unlock()
	if r.ContentLength > limit {
		w.WriteHeader(413)
		return nil, false
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(500)
		return nil, false
	}
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "":
		return raw, true
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err == nil {
			raw, err = io.ReadAll(zr)
		}
		if err != nil {
			fail(w, 400, CodeDecode, "Error decode request: deflate decompression error")
			return nil, false
		}
		return raw, true
	default:
		fail(w, 400, CodeDecode, "Error decode request: unsupported encoding "+enc)
		return nil, false
	}
}

type column struct {
	name string
	kind kind
}

type row struct {
	table, key string
	ts         int64
	columns    []column
}

func (s *Server) write(w http.ResponseWriter, r *http.Request) {
	data, ok := s.post(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	delay := s.delay
	s.mu.Unlock()
	time.Sleep(delay)
	prec := lineprotocol.Nanosecond
	switch q.Get("precision") {
	case "ms":
		prec = lineprotocol.Millisecond
	case "us":
		prec = lineprotocol.Microsecond
	}
	rows, err := parse(data, prec)
	if err != nil {
		s.refuse(w, 422, CodeBadLine, "Error parsing message: "+err.Error())
		return
	}
	dbName := q.Get("db")
	if dbName == "" {
		dbName = "public"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	db := s.dbs[dbName]
	switch {
	case db == nil:
		s.refused++
		fail(w, 422, CodeDBNotFound, fmt.Sprintf("Database not found: \"%s\"", dbName))
		return
	case s.memoryExhausted > 0:
		s.memoryExhausted--
		s.refused++
		fail(w, 422, CodeMemory, MemoryExhaustedMsg)
		return
	case s.timeouts > 0:
		s.timeouts--
		s.refused++
		fail(w, 422, CodeTimeout, "write vnode timeout")
		return
	case s.emptyErrors > 0:
		s.emptyErrors--
		s.refused++
		w.WriteHeader(500)
		return
	}
	// Checked on the whole request before any of it is kept: the TTL, and
	// the lines of each time bucket (vnode) against each other (a column's
	// first appearance fixes its kind in the bucket). Then each bucket is
	// applied on its own: a bucket whose rows clash with the columns a
	// table already has (or got from a bucket applied before) is refused,
	// the others are kept, and the answer is the refusal. CnosDB applies the
	// buckets in an order of its own (neither time nor line order); the
	// stand-in in line order.
	for _, rw := range rows {
		if db.expired(rw.ts, time.Now()) {
			s.refused++
			fail(w, 422, CodeExpired, "Operation not support: create expired bucket")
			return
		}
	}
	var order []int64
	buckets := map[int64][]row{}
	for _, rw := range rows {
		b := db.bucketOf(rw.ts)
		if buckets[b] == nil {
			order = append(order, b)
		}
		buckets[b] = append(buckets[b], rw)
	}
	for _, b := range order {
		if msg := inRequestConflict(buckets[b]); msg != "" {
			s.refused++
			fail(w, 422, CodeFieldType, msg)
			return
		}
	}
	refusal := ""
	for _, b := range order {
		if msg := storedConflict(buckets[b], db); msg != "" {
			if refusal == "" {
				refusal = msg
			}
			continue
		}
		for _, rw := range buckets[b] {
			t := db.tables[rw.table]
			if t == nil {
				t = &table{keys: map[string]struct{}{}, columns: map[string]kind{}}
				db.tables[rw.table] = t
			}
			t.keys[rw.key] = struct{}{}
			for _, c := range rw.columns {
				t.columns[c.name] = c.kind
			}
		}
	}
	if refusal != "" {
		s.refused++
		fail(w, 422, CodeFieldType, refusal)
		return
	}
	s.writes++
	w.WriteHeader(200)
}

// inRequestConflict returns CnosDB's message for the first column whose
// kind differs within the rows of one bucket ("" when there is none).
func inRequestConflict(rows []row) string {
	inRequest := map[string]map[string]kind{}
	for _, rw := range rows {
		kinds := inRequest[rw.table]
		if kinds == nil {
			kinds = map[string]kind{}
			inRequest[rw.table] = kinds
		}
		for _, c := range rw.columns {
			if k, ok := kinds[c.name]; !ok {
				kinds[c.name] = c.kind
			} else if k != c.kind {
				return fmt.Sprintf("line to batch error: Expected %s column", c.kind.name())
			}
		}
	}
	return ""
}

// storedConflict returns CnosDB's message for the first column of rows
// whose kind differs from the one its table already has ("" when none).
func storedConflict(rows []row, db *database) string {
	for _, rw := range rows {
		t := db.tables[rw.table]
		if t == nil {
			continue
		}
		for _, c := range rw.columns {
			if have, ok := t.columns[c.name]; ok && have != c.kind {
				return fmt.Sprintf("Apply engine failed: DataSchemaError: Column '%s' type error, found %s expected %s",
					c.name, strings.ToUpper(c.kind.name()), strings.ToUpper(have.name()))
			}
		}
	}
	return ""
}

func (s *Server) refuse(w http.ResponseWriter, status int, code, msg string) {
	s.mu.Lock()
	s.refused++
	s.mu.Unlock()
	fail(w, status, code, msg)
}

// seen reports whether cols has a field (not a tag) named name.
func seen(cols []column, name []byte) bool {
	for _, c := range cols {
		if c.kind != kindTag && c.name == string(name) {
			return true
		}
	}
	return false
}

var kinds = map[lineprotocol.ValueKind]kind{
	lineprotocol.Float: kindFloat, lineprotocol.Int: kindInt, lineprotocol.Uint: kindUint,
	lineprotocol.String: kindString, lineprotocol.Bool: kindBool,
}

// parse decodes every line; the first error refuses the whole request.
func parse(data []byte, prec lineprotocol.Precision) ([]row, error) {
	var rows []row
	dec := lineprotocol.NewDecoderWithBytes(data)
	now := time.Now()
	var key []byte
	type tag struct{ k, v string }
	var tags []tag
	for dec.Next() {
		m, err := dec.Measurement()
		if err != nil {
			return nil, err
		}
		tags = tags[:0]
		var cols []column
		for {
			k, v, err := dec.NextTag()
			if err != nil {
				return nil, err
			}
			if k == nil {
				break
			}
			tags = append(tags, tag{string(k), string(v)})
			cols = append(cols, column{string(k), kindTag})
		}
		for {
			k, v, err := dec.NextField()
			if err != nil {
				return nil, err
			}
			if k == nil {
				break
			}
			if !seen(cols, k) { // CnosDB takes a field named twice in a line
				cols = append(cols, column{string(k), kinds[v.Kind()]})
			}
		}
		ts, err := dec.Time(prec, now)
		if err != nil {
			return nil, err
		}
		sort.Slice(tags, func(i, j int) bool { return tags[i].k < tags[j].k })
		key = key[:0]
		for _, t := range tags {
			key = append(key, t.k...)
			key = append(key, 0)
			key = append(key, t.v...)
			key = append(key, 0)
		}
		key = append(key, fmt.Sprint(ts.UnixNano())...)
		rows = append(rows, row{table: string(m), key: string(key), ts: ts.UnixNano(), columns: cols})
	}
	return rows, nil
}

var (
	reCreate = regexp.MustCompile(`(?is)^\s*CREATE\s+DATABASE\s+(IF\s+NOT\s+EXISTS\s+)?("[^"]+"|\w+)\s*(WITH\s+(.*?))?\s*;?\s*$`)
	reDrop   = regexp.MustCompile(`(?is)^\s*DROP\s+DATABASE\s+(IF\s+EXISTS\s+)?("[^"]+"|\w+)\s*;?\s*$`)
	reShow   = regexp.MustCompile(`(?is)^\s*SHOW\s+DATABASES\s*;?\s*$`)
	reCount  = regexp.MustCompile(`(?is)^\s*SELECT\s+(exact_count|count)\(\*\)\s+AS\s+(\w+)\s+FROM\s+("[^"]+"|\w+)\s*;?\s*$`)
)

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		return s[1 : len(s)-1]
	}
	return strings.ToLower(s)
}

func (s *Server) sql(w http.ResponseWriter, r *http.Request) {
	body, ok := s.post(w, r)
	if !ok {
		return
	}
	stmt := string(body)
	asJSON := strings.Contains(r.Header.Get("Accept"), "application/json")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case reCreate.MatchString(stmt):
		m := reCreate.FindStringSubmatch(stmt)
		name := unquote(m[2])
		if s.dbs[name] != nil {
			if m[1] == "" {
				fail(w, 422, CodeDBExists, fmt.Sprintf("Database \"%s\" already exists", name))
			}
			return
		}
		s.dbs[name] = newDatabase(strings.TrimSpace(m[4]))
	case reDrop.MatchString(stmt):
		m := reDrop.FindStringSubmatch(stmt)
		name := unquote(m[2])
		if s.dbs[name] == nil && m[1] == "" {
			fail(w, 422, CodeDBNotFound, fmt.Sprintf("Database not found: \"%s\"", name))
			return
		}
		delete(s.dbs, name)
	case reShow.MatchString(stmt):
		names := make([]string, 0, len(s.dbs))
		for n := range s.dbs {
			names = append(names, n)
		}
		sort.Strings(names)
		rows := make([]map[string]any, len(names))
		for i, n := range names {
			rows[i] = map[string]any{"database_name": n}
		}
		answer(w, asJSON, []string{"database_name"}, rows)
	case reCount.MatchString(stmt):
		m := reCount.FindStringSubmatch(stmt)
		fn, alias, tname := strings.ToLower(m[1]), m[2], unquote(m[3])
		if fn == "exact_count" && !s.exactCount {
			fail(w, 422, CodePlanning, "Datafusion: Error during planning: Invalid function 'exact_count'.\nDid you mean 'COUNT'?")
			return
		}
		dbName := r.URL.Query().Get("db")
		if dbName == "" {
			dbName = "public"
		}
		db := s.dbs[dbName]
		if db == nil {
			fail(w, 422, CodeDBNotFound, fmt.Sprintf("Database not found: \"%s\"", dbName))
			return
		}
		t := db.tables[tname]
		if t == nil {
			fail(w, 422, CodePlanning, fmt.Sprintf("Datafusion: Error during planning: Table not found, tenant: cnosdb db: %s, table: %s", dbName, tname))
			return
		}
		answer(w, asJSON, []string{alias}, []map[string]any{{alias: int64(len(t.keys))}})
	default:
		fail(w, 422, CodeSQLParse, "sql parser error: the stand-in does not support: "+stmt)
	}
}

// answer writes rows as a JSON array, or as CSV with a header.
func answer(w http.ResponseWriter, asJSON bool, cols []string, rows []map[string]any) {
	if len(rows) == 0 {
		return // an empty result is an empty body
	}
	if asJSON {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rows)
		return
	}
	w.Header().Set("Content-Type", "application/csv")
	io.WriteString(w, strings.Join(cols, ",")+"\n")
	for _, r := range rows {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = fmt.Sprint(r[c])
		}
		io.WriteString(w, strings.Join(vals, ",")+"\n")
	}
}
