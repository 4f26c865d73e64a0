// Package cnosdbtest is an in-process stand-in for a CnosDB 2.x server
// (/api/v1/write, /api/v1/sql, /api/v1/ping), built from CnosDB's documented
// behaviour so that load_cnosdb can be tested where no CnosDB can be
// installed. It is not CnosDB: it keeps row keys only (series and time), and
// understands only the SQL the loader sends.
//
// Emulated behaviour:
//   - Authorization: Basic is mandatory on write and sql (400 without it); a
//     wrong password is 422 (Users lists the accepted user:password pairs;
//     empty means any password for any user, as with auth off).
//   - Success is 200 with an empty body.
//   - Errors are 422 {"error_code":"NNNNNN","error_message":"..."}: a bad line
//     (code 040004; nothing of the request is written), an unknown database,
//     a wrong password, memory pressure ("Memory Exhausted Retry Later", on
//     demand through MemoryExhausted).
//   - A request without Content-Length is 500 with an empty body; a body over
//     BodyLimit (compressed size) is 413 with an empty body.
//   - Content-Encoding gzip is decompressed.
//   - Rows are de-duplicated on (measurement, tag set, time).
//   - SQL: CREATE DATABASE [IF NOT EXISTS] d [WITH ...] (the options are kept
//     verbatim, see Options), DROP DATABASE [IF EXISTS] d, SHOW DATABASES,
//     SELECT exact_count(*) AS n FROM t (unsupported when Old is set, as on
//     servers before 2.4.3), SELECT count(*) AS n FROM t (counts every row
//     written, duplicates included, as a plain count over un-compacted data
//     can). JSON array answers with Accept: application/json.
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

// Error codes used by the stand-in (040004 is CnosDB's line-protocol error;
// the others are representative).
const (
	CodeAuthMissing    = "010001"
	CodeAuthFailed     = "010002"
	CodeBadLine        = "040004"
	CodeDBNotFound     = "030001"
	CodeDBExists       = "030002"
	CodeTableNotFound  = "030003"
	CodeMemory         = "050001"
	CodeTimeout        = "050002"
	CodeSQL            = "010005"
	CodeUnknownTenant  = "030004"
	DefaultBodyLimit   = 160 << 20
	MemoryExhaustedMsg = "Memory Exhausted Retry Later"
)

// Server is a running stand-in. Set the knobs before or between requests
// with the methods; fields are guarded by the server's lock.
type Server struct {
	*httptest.Server

	mu              sync.Mutex
	users           map[string]string
	bodyLimit       int64
	memoryExhausted int
	timeouts        int
	emptyErrors     int
	old             bool
	dbs             map[string]*database
	writes, refused int
	delay           time.Duration
}

type database struct {
	options string
	tables  map[string]*table
}

type table struct {
	keys    map[string]struct{}
	written int64 // every row accepted, duplicates included
}

// New starts a stand-in server; Close it when done.
func New() *Server {
	s := &Server{bodyLimit: DefaultBodyLimit, dbs: map[string]*database{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/ping", s.ping)
	mux.HandleFunc("/api/v1/write", s.write)
	mux.HandleFunc("/api/v1/sql", s.sql)
	s.Server = httptest.NewServer(mux)
	return s
}

// SetUsers requires these user:password pairs (nil: accept any).
func (s *Server) SetUsers(users map[string]string) { s.mu.Lock(); s.users = users; s.mu.Unlock() }

// SetBodyLimit sets the 413 limit on the (compressed) request body.
func (s *Server) SetBodyLimit(n int64) { s.mu.Lock(); s.bodyLimit = n; s.mu.Unlock() }

// MemoryExhausted makes the next n writes answer 422 Memory Exhausted Retry Later.
func (s *Server) MemoryExhausted(n int) { s.mu.Lock(); s.memoryExhausted = n; s.mu.Unlock() }

// Timeouts makes the next n writes answer 422 with a timeout message.
func (s *Server) Timeouts(n int) { s.mu.Lock(); s.timeouts = n; s.mu.Unlock() }

// EmptyErrors makes the next n writes answer 500 with an empty body.
func (s *Server) EmptyErrors(n int) { s.mu.Lock(); s.emptyErrors = n; s.mu.Unlock() }

// SetOld makes exact_count unknown, as on CnosDB before 2.4.3.
func (s *Server) SetOld(old bool) { s.mu.Lock(); s.old = old; s.mu.Unlock() }

// SetDelay delays every write answer (for timeouts).
func (s *Server) SetDelay(d time.Duration) { s.mu.Lock(); s.delay = d; s.mu.Unlock() }

// Stats returns the writes accepted and refused so far (refusals counted
// are those after the auth and body checks: bad lines, unknown database or
// tenant, and the on-demand errors).
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
	io.WriteString(w, `{"version":"2.4.0-cnosdbtest","status":"healthy"}`)
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
		fail(w, 400, CodeAuthMissing, "Auth error: missing authorization header")
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	user, pass, ok := strings.Cut(string(raw), ":")
	if !strings.HasPrefix(h, "Basic ") || err != nil || !ok {
		fail(w, 400, CodeAuthMissing, "Auth error: malformed authorization header")
		return false
	}
	s.mu.Lock()
	users := s.users
	s.mu.Unlock()
	if users != nil {
		if want, found := users[user]; !found || want != pass {
			fail(w, 422, CodeAuthFailed, fmt.Sprintf("Auth error: password of user %s is wrong", user))
			return false
		}
	}
	return true
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
			fail(w, 422, CodeBadLine, "decompress gzip body: "+err.Error())
			return nil, false
		}
		return raw, true
	default:
		fail(w, 422, CodeBadLine, "unsupported Content-Encoding "+enc)
		return nil, false
	}
}

type row struct {
	table, key string
}

func (s *Server) write(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(405)
		return
	}
	if !s.auth(w, r) {
		return
	}
	data, ok := s.body(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	if t := q.Get("tenant"); t != "" && t != "cnosdb" {
		s.refuse(w, 422, CodeUnknownTenant, "Tenant not found: "+t)
		return
	}
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
		s.refuse(w, 422, CodeBadLine, "Error parsing line protocol: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	db := s.dbs[q.Get("db")]
	switch {
	case db == nil:
		s.refused++
		fail(w, 422, CodeDBNotFound, fmt.Sprintf("Database not found: \"%s\"", q.Get("db")))
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
	for _, rw := range rows {
		t := db.tables[rw.table]
		if t == nil {
			t = &table{keys: map[string]struct{}{}}
			db.tables[rw.table] = t
		}
		t.keys[rw.key] = struct{}{}
		t.written++
	}
	s.writes++
	w.WriteHeader(200)
}

func (s *Server) refuse(w http.ResponseWriter, status int, code, msg string) {
	s.mu.Lock()
	s.refused++
	s.mu.Unlock()
	fail(w, status, code, msg)
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
		for {
			k, v, err := dec.NextTag()
			if err != nil {
				return nil, err
			}
			if k == nil {
				break
			}
			tags = append(tags, tag{string(k), string(v)})
		}
		nf := 0
		for {
			k, _, err := dec.NextField()
			if err != nil {
				return nil, err
			}
			if k == nil {
				break
			}
			nf++
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
		rows = append(rows, row{table: string(m), key: string(key)})
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
	if r.Method != http.MethodPost {
		w.WriteHeader(405)
		return
	}
	if !s.auth(w, r) {
		return
	}
	body, ok := s.body(w, r)
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
				fail(w, 422, CodeDBExists, fmt.Sprintf("Database %s already exists", name))
			}
			return
		}
		s.dbs[name] = &database{options: strings.TrimSpace(m[4]), tables: map[string]*table{}}
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
		if fn == "exact_count" && s.old {
			fail(w, 422, CodeSQL, "Datafusion: Error during planning: Invalid function 'exact_count'")
			return
		}
		db := s.dbs[r.URL.Query().Get("db")]
		if db == nil {
			fail(w, 422, CodeDBNotFound, fmt.Sprintf("Database not found: \"%s\"", r.URL.Query().Get("db")))
			return
		}
		t := db.tables[tname]
		if t == nil {
			fail(w, 422, CodeTableNotFound, fmt.Sprintf("Table not found: \"%s\"", tname))
			return
		}
		n := int64(len(t.keys))
		if fn == "count" {
			n = t.written
		}
		answer(w, asJSON, []string{alias}, []map[string]any{{alias: n}})
	default:
		fail(w, 422, CodeSQL, "cnosdbtest: unsupported statement: "+stmt)
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
