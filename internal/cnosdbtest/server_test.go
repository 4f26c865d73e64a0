package cnosdbtest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
)

func do(t *testing.T, s *Server, path, auth, body string, mod func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		u, p, _ := strings.Cut(auth, ":")
		req.SetBasicAuth(u, p)
	}
	req.Header.Set("Accept", "application/json")
	if mod != nil {
		mod(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServer(t *testing.T) {
	s := New()
	defer s.Close()
	gz := func(body string) func(*http.Request) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(body))
		zw.Close()
		return func(r *http.Request) {
			r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
			r.ContentLength = int64(buf.Len())
			r.Header.Set("Content-Encoding", "gzip")
		}
	}
	steps := []struct {
		name       string
		path, auth string
		body       string
		mod        func(*http.Request)
		status     int
		want       string
	}{
		{"no auth", "/api/v1/sql", "", "SHOW DATABASES", nil, 400, `"error_code":"010001"`},
		{"create", "/api/v1/sql", "root:", "CREATE DATABASE IF NOT EXISTS d WITH TTL '10d' SHARD 2", nil, 200, ""},
		{"create again", "/api/v1/sql", "root:", "CREATE DATABASE IF NOT EXISTS d", nil, 200, ""},
		{"create exists", "/api/v1/sql", "root:", "CREATE DATABASE d", nil, 422, "already exists"},
		{"show", "/api/v1/sql", "root:", "SHOW DATABASES", nil, 200, `[{"database_name":"d"}]`},
		{"write", "/api/v1/write?db=d&tenant=cnosdb&precision=ns", "root:", "m,h=a v=1 1\nm,h=b v=2 1\n", nil, 200, ""},
		{"duplicate, tags reordered", "/api/v1/write?db=d", "root:", "m,h=a v=3 1\nm,z=1,h=c v=2 1\n", nil, 200, ""},
		{"bad line writes nothing", "/api/v1/write?db=d", "root:", "m,h=x v=1 5\nm v=oops x 6\n", nil, 422, `"error_code":"040004"`},
		{"unknown db", "/api/v1/write?db=nope", "root:", "m v=1 1\n", nil, 422, "Database not found"},
		{"gzip", "/api/v1/write?db=d&precision=ms", "root:", "", gz("m,h=g v=1 1\n"), 200, ""},
		{"chunked", "/api/v1/write?db=d", "root:", "", func(r *http.Request) {
			r.ContentLength = -1
			r.Body = io.NopCloser(strings.NewReader("m v=1 9\n"))
		}, 500, ""},
		{"exact_count", "/api/v1/sql?db=d", "root:", "SELECT exact_count(*) AS n FROM m", nil, 200, `[{"n":4}]`},
		{"count over-counts", "/api/v1/sql?db=d", "root:", "SELECT count(*) AS n FROM m", nil, 200, `[{"n":5}]`},
		{"no table", "/api/v1/sql?db=d", "root:", "SELECT exact_count(*) AS n FROM zz", nil, 422, "Table not found"},
		{"unsupported", "/api/v1/sql?db=d", "root:", "SELECT * FROM m", nil, 422, "unsupported"},
		{"drop", "/api/v1/sql", "root:", "DROP DATABASE IF EXISTS d", nil, 200, ""},
		{"drop again", "/api/v1/sql", "root:", "DROP DATABASE IF EXISTS d", nil, 200, ""},
		{"show none", "/api/v1/sql", "root:", "SHOW DATABASES", nil, 200, ""},
	}
	for _, st := range steps {
		status, body := do(t, s, st.path, st.auth, st.body, st.mod)
		if status != st.status || (st.want == "" && strings.TrimSpace(body) != "") || !strings.Contains(body, st.want) {
			t.Fatalf("%s: %d %q, want %d %q", st.name, status, body, st.status, st.want)
		}
		if st.name == "create" {
			if opts, _ := s.Options("d"); opts != "TTL '10d' SHARD 2" {
				t.Fatalf("options %q", opts)
			}
		}
	}
}

func TestServerKnobs(t *testing.T) {
	s := New()
	defer s.Close()
	do(t, s, "/api/v1/sql", "root:", "CREATE DATABASE d", nil)
	s.SetUsers(map[string]string{"root": "pw"})
	if st, b := do(t, s, "/api/v1/write?db=d", "root:bad", "m v=1 1\n", nil); st != 422 || !strings.Contains(b, "password") {
		t.Fatalf("wrong password: %d %s", st, b)
	}
	s.MemoryExhausted(1)
	if st, b := do(t, s, "/api/v1/write?db=d", "root:pw", "m v=1 1\n", nil); st != 422 || !strings.Contains(b, MemoryExhaustedMsg) {
		t.Fatalf("memory: %d %s", st, b)
	}
	s.Timeouts(1)
	if st, b := do(t, s, "/api/v1/write?db=d", "root:pw", "m v=1 1\n", nil); st != 422 || !strings.Contains(b, "timeout") {
		t.Fatalf("timeout: %d %s", st, b)
	}
	s.EmptyErrors(1)
	if st, b := do(t, s, "/api/v1/write?db=d", "root:pw", "m v=1 1\n", nil); st != 500 || b != "" {
		t.Fatalf("empty 500: %d %q", st, b)
	}
	s.SetBodyLimit(4)
	if st, b := do(t, s, "/api/v1/write?db=d", "root:pw", "m v=1 1\n", nil); st != 413 || b != "" {
		t.Fatalf("413: %d %q", st, b)
	}
	s.SetBodyLimit(DefaultBodyLimit)
	if st, _ := do(t, s, "/api/v1/write?db=d", "root:pw", "m v=1 1\n", nil); st != 200 {
		t.Fatalf("write after knobs: %d", st)
	}
	s.SetOld(true)
	if st, b := do(t, s, "/api/v1/sql?db=d", "root:pw", "SELECT exact_count(*) AS n FROM m", nil); st != 422 || !strings.Contains(b, "exact_count") {
		t.Fatalf("old: %d %s", st, b)
	}
	if w, r := s.Stats(); w != 1 || r != 3 {
		t.Fatalf("stats %d writes %d refused, want 1 and 3", w, r)
	}
	if n := s.Rows("d", "m"); n != 1 {
		t.Fatalf("rows %d", n)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("m,h=a v=1 1\nm,h=b v=2i,s=\"x\" 2\n"))
	f.Add([]byte("m v=oops x\n# c\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := parse(data, lineprotocol.Nanosecond)
		if err != nil {
			return
		}
		// Every accepted row starts a non-empty, non-comment line.
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if l = bytes.TrimLeft(l, " \t\r"); len(l) > 0 && l[0] != '#' {
				lines++
			}
		}
		if len(rows) > lines {
			t.Fatalf("%d rows from %d lines", len(rows), lines)
		}
	})
}
