package influx3test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

func do(t *testing.T, base, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	return loadtest.HTTP(t, method, base+path, body, func(req *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	})
}

var gz = loadtest.Gzip

// step is one request (with the admin token unless noToken) and the answer
// InfluxDB 3 Core 3.6.0 gives to it.
type step struct {
	name, method, path, body string
	hdr                      []string
	noToken                  bool
	status                   int
	want                     string // in the body; "" means an empty body
}

// wide is a line with more fields than a table may have columns (500).
var wide = func() string {
	var b strings.Builder
	b.WriteString("wide,h=a ")
	for i := 0; i < 510; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("f" + strconv.Itoa(i) + "=1i")
	}
	return b.String() + " 1\n"
}()

func count(table string) string {
	return `{"db":"{db}","q":"SELECT COUNT(*) AS n FROM \"` + table + `\"","format":"json"}`
}

// conformance is a session against a fresh database {db}: every answer is
// what the real server gave (2026-12-01).
var conformance = []step{
	{"ping without a token", "GET", "/ping", "", nil, true, 401, ""},
	{"health without a token", "GET", "/health", "", nil, true, 401, ""},
	{"health", "GET", "/health", "", nil, false, 200, "OK"},
	{"write with a wrong token", "POST", "/api/v3/write_lp?db={db}", "cpu v=1 1\n", []string{"Authorization", "Token wrong"}, true, 401, ""},
	{"create", "POST", "/api/v3/configure/database", `{"db":"{db}"}`, nil, false, 200, ""},
	{"create again", "POST", "/api/v3/configure/database", `{"db":"{db}"}`, nil, false, 409, "attempted to create a resource that already exists"},
	{"bad database name", "POST", "/api/v3/configure/database", `{"db":"a b"}`, nil, false, 400, "invalid character in database or rp name: must be ASCII, containing only letters, numbers, underscores, or hyphens"},
	{"list", "GET", "/api/v3/configure/database?format=json", "", nil, false, 200, `{"iox::database":"{db}"}`},
	{"write", "POST", "/api/v3/write_lp?db={db}&precision=nanosecond&accept_partial=false", "cpu,h=a v=1 1\n\n# c\ncpu,h=b v=2 1\n", nil, false, 204, ""},
	{"the same key overwrites", "POST", "/api/v3/write_lp?db={db}&precision=nanosecond&no_sync=true", "cpu,h=a v=5 1\n", nil, false, 204, ""},
	{"a bad line refuses the request", "POST", "/api/v3/write_lp?db={db}&accept_partial=false", "cpu,h=c v=1 2\n\ncpu,h=d v=oops 3\n", nil, false, 400,
		`{"error":"parsing failed for write_lp endpoint","data":{"error_message":`},
	{"line_number skips blanks, original_line does not", "POST", "/api/v3/write_lp?db={db}&accept_partial=false", "cpu,h=c v=1 2\n\ncpu,h=d v=oops 3\n", nil, false, 400,
		`"line_number":2,"original_line":""}}`},
	{"accept_partial is the default", "POST", "/api/v3/write_lp?db={db}", "cpu,h=c v=1 2\ncpu,h=d v=oops 3\ncpu,h=e v=1 4\n", nil, false, 400,
		`{"error":"partial write of line protocol occurred","data":[{"error_message":`},
	{"type conflict with an earlier request", "POST", "/api/v3/write_lp?db={db}&accept_partial=true", "cpu,h=f v=\"s\" 5\n", nil, false, 400,
		`"error_message":"invalid column type for column 'v', expected iox::column_type::field::float, got iox::column_type::field::string","line_number":1`},
	{"type conflict inside a request", "POST", "/api/v3/write_lp?db={db}&accept_partial=false", "tc,h=f v=1i 5\ntc,h=g v=1.5 6\n", nil, false, 400,
		`{"error":"parsing failed for write_lp endpoint","data":{"error_message":"invalid column type for column 'v', expected iox::column_type::field::integer, got iox::column_type::field::float","line_number":2`},
	{"nothing of it was written", "POST", "/api/v3/query_sql", count("tc"), nil, false, 500, "query error: error while planning query: Error during planning: table 'public.iox.tc' not found"},
	{"a tag where a field was", "POST", "/api/v3/write_lp?db={db}&accept_partial=false", "cpu,v=x w=1 6\n", nil, false, 400,
		`expected iox::column_type::field::float, got iox::column_type::tag`},
	{"a new tag is added (3.0 pre-releases refused it)", "POST", "/api/v3/write_lp?db={db}&accept_partial=false", "cpu,h=a,rack=r1 v=2 7\n", nil, false, 204, ""},
	{"too many columns, partial", "POST", "/api/v3/write_lp?db={db}&accept_partial=true", wide, nil, false, 422,
		`"error_message":"Update to schema would exceed number of columns per table limit of 500 columns"`},
	{"too many columns, whole", "POST", "/api/v3/write_lp?db={db}&accept_partial=false", wide, nil, false, 400,
		`{"error":"parsing failed for write_lp endpoint","data":{"error_message":"Update to schema would exceed number of columns per table limit of 500 columns"`},
	{"no db", "POST", "/api/v3/write_lp?precision=second", "cpu v=1\n", nil, false, 400, "serde error: missing field `db`"},
	{"bad precision", "POST", "/api/v3/write_lp?db={db}&precision=minute", "cpu v=1\n", nil, false, 400, "serde error: unknown variant `minute`, expected one of `auto`, `s`, `second`, `millisecond`, `ms`, `microsecond`, `u`, `us`, `n`, `nanosecond`, `ns`"},
	{"bad no_sync", "POST", "/api/v3/write_lp?db={db}&no_sync=yes", "cpu v=1\n", nil, false, 400, "serde error: provided string was not `true` or `false`"},
	{"empty", "POST", "/api/v3/write_lp?db={db}", "\n# only a comment\n", nil, false, 400, "incoming write was empty"},
	{"not utf-8", "POST", "/api/v3/write_lp?db={db}", "cpu,h=\xff v=1 3\n", nil, false, 500, "body content is not valid utf8: invalid utf-8 sequence"},
	{"gzip", "POST", "/api/v3/write_lp?db={db}&precision=auto", gz("gz,h=a v=1 1700000000\ngz,h=b v=1 1700000000\n"), []string{"Content-Encoding", "gzip"}, false, 204, ""},
	{"not gzip", "POST", "/api/v3/write_lp?db={db}", "gz v=1 1\n", []string{"Content-Encoding", "gzip"}, false, 500, "error decoding gzip stream"},
	{"zstd", "POST", "/api/v3/write_lp?db={db}", "gz v=1 1\n", []string{"Content-Encoding", "zstd"}, false, 400, "unacceptable content-encoding: zstd"},
	{"over the request limit: 500, not 413", "POST", "/api/v3/write_lp?db={db}", strings.Repeat("big,h=a v=1 1\n", DefaultMaxRequestBytes/14+1), nil, false, 500, "max request size (10485760 bytes) exceeded"},
	{"over the limit once decompressed", "POST", "/api/v3/write_lp?db={db}", gz(strings.Repeat("big,h=a v=1 1\n", DefaultMaxRequestBytes/14+1)), []string{"Content-Encoding", "gzip"}, false, 500, "max request size (10485760 bytes) exceeded"},
	{"/write", "POST", "/write?db={db}&precision=s", "leg v=1 1\n", nil, false, 204, ""},
	{"/api/v2/write", "POST", "/api/v2/write?bucket={db}&precision=s", "leg v=1 2\n", nil, false, 204, ""},
	{"count", "POST", "/api/v3/query_sql", count("cpu"), nil, false, 200, `[{"n":5}]`},
	{"count without an alias", "POST", "/api/v3/query_sql", `{"db":"{db}","q":"SELECT COUNT(*) FROM cpu","format":"json"}`, nil, false, 200, `[{"count(*)":5}]`},
	{"count by GET", "GET", "/api/v3/query_sql?db={db}&q=SELECT+COUNT(*)+AS+n+FROM+gz&format=json", "", nil, false, 200, `[{"n":2}]`},
	{"count the legacy writes", "POST", "/api/v3/query_sql", count("leg"), nil, false, 200, `[{"n":2}]`},
	{"no such table", "POST", "/api/v3/query_sql", count("zz"), nil, false, 500, "query error: error while planning query: Error during planning: table 'public.iox.zz' not found"},
	{"no such database", "POST", "/api/v3/query_sql", `{"db":"{db}_nope","q":"SELECT COUNT(*) AS n FROM zz","format":"json"}`, nil, false, 404, `{"error":"query error: database not found: {db}_nope"}`},
	{"drop _internal", "DELETE", "/api/v3/configure/database?db=_internal", "", nil, false, 500, "cannot delete internal db"},
	{"drop", "DELETE", "/api/v3/configure/database?db={db}&hard_delete_at=now", "", nil, false, 200, ""},
	{"drop again", "DELETE", "/api/v3/configure/database?db={db}&hard_delete_at=now", "", nil, false, 404, "the requested resource was not found"},
	{"a write creates the database", "POST", "/api/v3/write_lp?db={db}&precision=second", "cpu v=1 1\n", nil, false, 204, ""},
	{"counted from scratch", "POST", "/api/v3/query_sql", count("cpu"), nil, false, 200, `[{"n":1}]`},
	{"drop it", "DELETE", "/api/v3/configure/database?db={db}&hard_delete_at=now", "", nil, false, 200, ""},
}

func runSteps(t *testing.T, base, token, db string, steps []step) {
	t.Helper()
	for _, st := range steps {
		hdr := append([]string(nil), st.hdr...)
		if !st.noToken {
			hdr = append(hdr, "Authorization", "Bearer "+token)
		}
		if st.method == "POST" && strings.HasPrefix(st.body, "{") {
			hdr = append(hdr, "Content-Type", "application/json")
		}
		status, body := do(t, base, st.method, strings.ReplaceAll(st.path, "{db}", db), strings.ReplaceAll(st.body, "{db}", db), hdr...)
		want := strings.ReplaceAll(st.want, "{db}", db)
		if status != st.status || (want == "" && strings.TrimSpace(body) != "") || !strings.Contains(body, want) {
			t.Errorf("%s: %d %.300q, want %d %q", st.name, status, body, st.status, want)
		}
	}
}

// TestConformance runs one session against the stand-in and, with the same
// expectations, against the real InfluxDB 3 Core: the stand-in answers as
// the real server does.
func TestConformance(t *testing.T) {
	t.Run("stand-in", func(t *testing.T) {
		s := New()
		defer s.Close()
		s.SetToken("tk")
		runSteps(t, s.URL, "tk", "tsload_conformance", conformance)
		if len(s.Databases()) != 0 {
			t.Errorf("databases left: %v", s.Databases())
		}
	})
	t.Run("real", func(t *testing.T) {
		r := RealServer(t)
		db := UniqueDB(t)
		r.DropAtEnd(t, db)
		runSteps(t, r.URL, r.Token, db, conformance)
	})
}

// TestStandInKnobs: the answers only the stand-in gives on demand (the real
// server cannot be made to give them): 429 overloaded, 500 wal buffer
// full, other limits, the immutable tag set of the 3.0 pre-releases.
func TestStandInKnobs(t *testing.T) {
	s := New()
	defer s.Close()
	s.Overloaded(1)
	if st, body := do(t, s.URL, "POST", "/api/v3/write_lp?db=d", "m v=1 1\n"); st != 429 || body != "this service is overloaded, please try again later" {
		t.Fatalf("overloaded: %d %s", st, body)
	}
	s.WALFull(1)
	if st, body := do(t, s.URL, "POST", "/api/v3/write_lp?db=d", "m v=1 1\n"); st != 500 || !strings.Contains(body, "wal buffer full") {
		t.Fatalf("wal full: %d %s", st, body)
	}
	s.SetImmutableTags(true)
	if st, body := do(t, s.URL, "POST", "/api/v3/write_lp?db=d&accept_partial=false", "m,h=a v=1 1\nm,h=a,r=x v=1 2\n"); st != 400 || !strings.Contains(body, "The tag set is immutable on first write to the table.") {
		t.Fatalf("immutable tags: %d %s", st, body)
	}
}

func TestGzipAuthPingDatabasesQuery(t *testing.T) {
	s := New()
	defer s.Close()
	s.SetToken("tk")
	if st, body := do(t, s.URL, "GET", "/ping", ""); st != 401 || body != "" {
		t.Fatalf("ping without token: %d %q", st, body)
	}
	req, _ := http.NewRequest("GET", s.URL+"/ping", nil)
	req.Header.Set("Authorization", "Bearer tk")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("X-Influxdb-Version") != Version {
		t.Fatalf("ping: %v %v", err, resp)
	}
	resp.Body.Close()
	if st, body := do(t, s.URL, "POST", "/api/v3/write_lp?db=z&precision=auto", gz("m,h=a v=1 1700000000\nm,h=b v=1 1700000000\n"), "Authorization", "Token tk", "Content-Encoding", "gzip"); st != 204 {
		t.Fatalf("gzip write: %d %s", st, body)
	}
	st, body := do(t, s.URL, "POST", "/api/v3/query_sql", `{"db":"z","q":"SELECT COUNT(*) AS n FROM \"m\"","format":"json"}`, "Authorization", "Token tk")
	if st != 200 || body != `[{"n":2}]` {
		t.Fatalf("count: %d %s", st, body)
	}
	if st, body := do(t, s.URL, "POST", "/api/v3/query_sql", `{"db":"z","q":"SELECT COUNT(*) AS n FROM \"x\""}`, "Authorization", "Token tk"); st != 500 || !strings.Contains(body, "not found") {
		t.Fatalf("missing table: %d %s", st, body)
	}
	if st, _ := do(t, s.URL, "POST", "/api/v3/configure/database", `{"db":"z"}`, "Authorization", "Token tk"); st != 409 {
		t.Fatalf("create existing: %d", st)
	}
	if st, _ := do(t, s.URL, "DELETE", "/api/v3/configure/database?db=z", "", "Authorization", "Token tk"); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	if st, _ := do(t, s.URL, "DELETE", "/api/v3/configure/database?db=z", "", "Authorization", "Token tk"); st != 404 {
		t.Fatalf("delete missing: %d", st)
	}
	st, body = do(t, s.URL, "GET", "/api/v3/configure/database?format=json", "", "Authorization", "Token tk")
	var rows []map[string]string
	if st != 200 || json.Unmarshal([]byte(body), &rows) != nil || len(rows) != 1 || rows[0]["iox::database"] != "_internal" {
		t.Fatalf("list: %d %s", st, body)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Path != "/api/v3/write_lp" || r[0].ContentEncoding != "gzip" || r[0].Query != "db=z&precision=auto" {
		t.Fatalf("requests %+v", r)
	}
}
