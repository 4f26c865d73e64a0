package influx3test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func do(t *testing.T, s *Server, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The answers the loader depends on, as the InfluxDB 3 documentation and
// server give them.
func TestWriteAnswers(t *testing.T) {
	s := New()
	defer s.Close()
	tests := []struct {
		name, query, body string
		status            int
		want              string
		rows              int64 // cpu rows in db d afterwards
	}{
		{"ok", "db=d&precision=nanosecond", "cpu,h=a v=1 1\n\n# c\ncpu,h=b v=2 1\n", 204, "", 2},
		{"same key overwrites", "db=d&precision=nanosecond", "cpu,h=a v=5 1\n", 204, "", 2},
		{"refused whole", "db=d&accept_partial=false", "cpu,h=c v=1 2\n\ncpu,h=d v=oops 3\n", 400,
			`{"error":"line protocol parsing error","data":{"error_message":`, 2},
		{"refused line number skips blanks", "db=d&accept_partial=false", "cpu,h=c v=1 2\n\ncpu,h=d v=oops 3\n", 400,
			`"line_number":2,"original_line":""}`, 2},
		{"partial", "db=d", "cpu,h=c v=1 2\ncpu,h=d v=oops 3\ncpu,h=e v=1 4\n", 400,
			`{"error":"partial write of line protocol occurred","data":[{"error_message":`, 4},
		{"type conflict", "db=d&accept_partial=true", "cpu,h=f v=\"s\" 5\n", 400,
			`invalid column type for column 'v', expected iox::column_type::field::float, got iox::column_type::field::string","line_number":1,"original_line":"cpu,h=f v=\"s\" 5"`, 4},
		{"tag becomes field", "db=d&accept_partial=false", "cpu,v=x w=1 6\n", 400,
			`expected iox::column_type::field::float, got iox::column_type::tag`, 4},
		{"no db", "precision=second", "cpu v=1\n", 400, "missing query parameter 'db'", 4},
		{"bad precision", "db=d&precision=minute", "cpu v=1\n", 400, "unrecognized precision unit: minute", 4},
		{"empty", "db=d", "\n# only a comment\n", 400, "incoming write was empty", 4},
	}
	for _, tc := range tests {
		status, body := do(t, s, "POST", "/api/v3/write_lp?"+tc.query, tc.body)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, status, body, tc.status, tc.want)
		}
		if got := s.Rows("d", "cpu"); got != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, got, tc.rows)
		}
	}
}

func TestLimits(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetLimits(1, 2, 4) // time + tag h + 2 fields
	if st, _ := do(t, s, "POST", "/api/v3/write_lp?db=a", "t1,h=a x=1,y=2 1\n"); st != 204 {
		t.Fatalf("first write: %d", st)
	}
	st, body := do(t, s, "POST", "/api/v3/write_lp?db=a", "t1,h=a z=1 2\nt1,h=b x=1 2\n")
	if st != 422 || !strings.Contains(body, "Update to schema would exceed number of columns per table limit of 4 columns") {
		t.Fatalf("columns: %d %s", st, body)
	}
	if s.Rows("a", "t1") != 2 {
		t.Fatalf("the valid line of a partial write was not kept")
	}
	st, body = do(t, s, "POST", "/api/v3/write_lp?db=a", "t2,h=a x=1 1\nt3,h=a x=1 1\n")
	if st != 422 || !strings.Contains(body, "exceed number of tables limit: attempted to create table but already have 2 table(s) (limit: 2)") {
		t.Fatalf("tables: %d %s", st, body)
	}
	st, body = do(t, s, "POST", "/api/v3/write_lp?db=b", "t1,h=a x=1 1\n")
	if st != 422 || body != `{"error":"Adding a new database would exceed limit of 1 databases","data":null}` {
		t.Fatalf("databases: %d %s", st, body)
	}
	s.SetMaxRequestBytes(10)
	st, body = do(t, s, "POST", "/api/v3/write_lp?db=a", "t1,h=a x=1 1\n")
	if st != 413 || body != "max request size (10 bytes) exceeded" {
		t.Fatalf("size: %d %s", st, body)
	}
}

func TestGzipAuthPingDatabasesQuery(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetToken("tk")
	if st, body := do(t, s, "GET", "/ping", ""); st != 401 || body != "" {
		t.Fatalf("ping without token: %d %q", st, body)
	}
	req, _ := http.NewRequest("GET", s.URL+"/ping", nil)
	req.Header.Set("Authorization", "Bearer tk")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("X-Influxdb-Version") != Version {
		t.Fatalf("ping: %v %v", err, resp)
	}
	resp.Body.Close()
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	io.WriteString(zw, "m,h=a v=1 1700000000\nm,h=b v=1 1700000000\n")
	zw.Close()
	if st, body := do(t, s, "POST", "/api/v3/write_lp?db=z&precision=auto", zb.String(), "Authorization", "Token tk", "Content-Encoding", "gzip"); st != 204 {
		t.Fatalf("gzip write: %d %s", st, body)
	}
	st, body := do(t, s, "POST", "/api/v3/query_sql", `{"db":"z","q":"SELECT COUNT(*) AS n FROM \"m\"","format":"json"}`, "Authorization", "Token tk")
	if st != 200 || body != `[{"n":2}]` {
		t.Fatalf("count: %d %s", st, body)
	}
	if st, body := do(t, s, "POST", "/api/v3/query_sql", `{"db":"z","q":"SELECT COUNT(*) AS n FROM \"x\""}`, "Authorization", "Token tk"); st != 400 || !strings.Contains(body, "not found") {
		t.Fatalf("missing table: %d %s", st, body)
	}
	if st, _ := do(t, s, "POST", "/api/v3/configure/database", `{"db":"z"}`, "Authorization", "Token tk"); st != 409 {
		t.Fatalf("create existing: %d", st)
	}
	if st, _ := do(t, s, "DELETE", "/api/v3/configure/database?db=z", "", "Authorization", "Token tk"); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := do(t, s, "DELETE", "/api/v3/configure/database?db=z", "", "Authorization", "Token tk"); st != 404 {
		t.Fatalf("delete missing: %d", st)
	}
	st, body = do(t, s, "GET", "/api/v3/configure/database?format=json", "", "Authorization", "Token tk")
	var rows []map[string]string
	if st != 200 || json.Unmarshal([]byte(body), &rows) != nil || len(rows) != 1 || rows[0]["iox::database"] != "_internal" {
		t.Fatalf("list: %d %s", st, body)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Path != "/api/v3/write_lp" || r[0].ContentEncoding != "gzip" || r[0].Query != "db=z&precision=auto" {
		t.Fatalf("requests %+v", r)
	}
}
