package influx

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// fixed answers every /write with one status and body and records the query.
type fixed struct {
	status int
	body   string
	query  atomic.Value
	calls  atomic.Int64
}

func (f *fixed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	f.query.Store(r.URL.RawQuery)
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	io.WriteString(w, f.body)
}

func TestWriteStatus(t *testing.T) {
	data := "m,h=a v=1 1\nm,h=b v=oops x 2\nm,h=c v=3 3\n"
	tests := []struct {
		status    int
		body      string
		rows      int
		dropped   int
		retryable bool
		errText   string
	}{
		{204, "", 3, 0, false, ""},
		{200, "", 3, 0, false, ""},
		{400, `{"error":"partial write: unable to parse 'm,h=b v=oops x 2': invalid boolean dropped=0"}`, 2, 1, false, ""},
		{400, `{"error":"field type conflict"}`, 0, 0, false, "server refused the batch (400: field type conflict)"},
		{401, `{"error":"authorization failed"}`, 0, 0, false, "check the user (User) and password (Password)"},
		{403, `{"error":"forbidden"}`, 0, 0, false, "authentication failed (403"},
		{404, `{"error":"database not found: \"nope\""}`, 0, 0, false, `database not found: "nope" (404): create it with CreateDB`},
		{413, `{"error":"Request Entity Too Large"}`, 0, 0, false, "lower BatchSize (this batch has 3 rows"},
		{500, `{"error":"engine: cache-max-memory-size exceeded: (1934870/1048576)"}`, 0, 0, true, "server cache full"},
		{500, `{"error":"timeout"}`, 0, 0, true, "write timeout"},
		{500, `{"error":"retention policy not found: nope"}`, 0, 0, false, "check RP"},
		{500, `{"error":"something else"}`, 0, 0, false, "server answered 500: something else"},
		{503, ``, 0, 0, true, "server busy (503 (empty body))"},
		// 1.6.7 with max-concurrent-write-limit / max-enqueued-write-limit (checked):
		{503, "request throttled, queue full\n", 0, 0, true, "server busy (503 request throttled, queue full)"},
		{503, "request throttled, exceeds timeout\n", 0, 0, true, "server busy (503 request throttled, exceeds timeout)"},
		{429, `too many`, 0, 0, true, "server busy (429 too many)"},
		{502, `bad gateway`, 0, 0, false, "server answered 502"},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			f := &fixed{status: tc.status, body: tc.body}
			srv := httptest.NewServer(f)
			defer srv.Close()
			tg, err := New(Config{API: APIv1, Conn: httpwrite.Conn{URLs: []string{srv.URL}, Gzip: true, GzipLevel: 1}, DBName: "db1", Precision: "ms", RP: "r", Consistency: "one"})
			if err != nil {
				t.Fatal(err)
			}
			w, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			ack, err := w.Write(context.Background(), batch(data, 1))
			if tc.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("err = %v, want %q", err, tc.errText)
				}
				if load.IsRetryable(err) != tc.retryable {
					t.Fatalf("retryable = %v, want %v (%v)", !tc.retryable, tc.retryable, err)
				}
				// The runner prefixes the batch position; the writer must not
				// repeat it.
				if !strings.HasPrefix(err.Error(), "influx: ") || strings.Contains(err.Error(), "records 1-3") {
					t.Fatalf("error repeats the batch position or lacks the target: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ack.Rows != tc.rows || ack.Dropped != tc.dropped {
				t.Fatalf("ack %+v, want rows %d dropped %d", ack, tc.rows, tc.dropped)
			}
			if q := f.query.Load().(string); q != "consistency=one&db=db1&precision=ms&rp=r" {
				t.Fatalf("query %q", q)
			}
		})
	}
}

func TestWriteNetworkErrorRetryable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	tg, err := New(Config{API: APIv1, Conn: httpwrite.Conn{URLs: []string{srv.URL}}, DBName: "db", Precision: "n"})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWriter(context.Background(), 0)
	_, err = w.Write(context.Background(), batch("m v=1 1\n", 1))
	if err == nil || !load.IsRetryable(err) {
		t.Fatalf("err = %v, want retryable", err)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Conn: httpwrite.Conn{URLs: []string{"http://x"}}, Precision: "n"}
	for _, p := range Precisions {
		c := ok
		c.Precision = p
		if err := c.Validate(); err != nil {
			t.Errorf("precision %q: %v", p, err)
		}
	}
	tests := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Precision = "ns" }, `invalid Precision "ns"`},
		{func(c *Config) { c.Precision = "us" }, `invalid Precision "us"`},
		{func(c *Config) { c.Precision = "" }, `invalid Precision ""`},
		{func(c *Config) { c.Consistency = "most" }, `invalid Consistency`},
		{func(c *Config) { c.Gzip, c.GzipLevel = true, 0 }, `invalid GzipLevel 0 (want 1-9)`},
		{func(c *Config) { c.URLs = nil }, `no URL`},
	}
	for _, tc := range tests {
		c := ok
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

// queryServer answers /query from a table of statement -> body.
func queryServer(t *testing.T, answers map[string]string, seen *[]string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		q := r.PostForm.Get("q")
		*seen = append(*seen, q)
		body, ok := answers[q]
		if !ok {
			body = `{"results":[{"statement_id":0}]}`
		}
		io.WriteString(w, body)
	}))
}

func TestPrepare(t *testing.T) {
	dbs := `{"results":[{"statement_id":0,"series":[{"name":"databases","columns":["name"],"values":[["_internal"],["have"]]}]}]}`
	tests := []struct {
		name    string
		db      string
		opts    load.PrepareOptions
		answers map[string]string
		want    []string
		wantErr string
	}{
		{"create", "new", load.PrepareOptions{CreateDB: true}, nil,
			[]string{"SHOW DATABASES", `CREATE DATABASE "new"`}, ""},
		{"exists", "have", load.PrepareOptions{CreateDB: true}, nil,
			[]string{"SHOW DATABASES"}, ""},
		{"abort on exist", "have", load.PrepareOptions{CreateDB: true, AbortOnExist: true}, nil,
			[]string{"SHOW DATABASES"}, `database "have" already exists`},
		{"drop", "have", load.PrepareOptions{CreateDB: true, DropDB: true}, nil,
			[]string{`DROP DATABASE "have"`, "SHOW DATABASES"}, ""},
		{"missing, no create", "new", load.PrepareOptions{}, nil,
			[]string{"SHOW DATABASES"}, "does not exist"},
		{"error in a 200 body", "new", load.PrepareOptions{CreateDB: true},
			map[string]string{`CREATE DATABASE "new"`: `{"results":[{"statement_id":0,"error":"boom"}]}`},
			[]string{"SHOW DATABASES", `CREATE DATABASE "new"`}, `CREATE DATABASE "new": boom`},
		{"quoting", `a"b`, load.PrepareOptions{CreateDB: true}, nil,
			[]string{"SHOW DATABASES", `CREATE DATABASE "a\"b"`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			answers := map[string]string{"SHOW DATABASES": dbs}
			for k, v := range tc.answers {
				answers[k] = v
			}
			srv := queryServer(t, answers, &seen)
			defer srv.Close()
			tg, err := New(Config{API: APIv1, Conn: httpwrite.Conn{URLs: []string{srv.URL}}, Precision: "n"})
			if err != nil {
				t.Fatal(err)
			}
			tc.opts.DBName = tc.db
			err = tg.Prepare(context.Background(), tc.opts)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if strings.Join(seen, "; ") != strings.Join(tc.want, "; ") {
				t.Fatalf("statements %q, want %q", seen, tc.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	var seen []string
	srv := queryServer(t, map[string]string{
		`SELECT COUNT(*) FROM "cpu"`:  `{"results":[{"statement_id":0,"series":[{"name":"cpu","columns":["time","count_a","count_b"],"values":[["1970-01-01T00:00:00Z",7,9]]}]}]}`,
		`SELECT COUNT(*) FROM "none"`: `{"results":[{"statement_id":0}]}`,
		`SELECT COUNT(*) FROM "bad"`:  `{"results":[{"statement_id":0,"error":"oops"}]}`,
	}, &seen)
	defer srv.Close()
	tg, _ := New(Config{API: APIv1, Conn: httpwrite.Conn{URLs: []string{srv.URL}}, DBName: "d", Precision: "n"})
	got, err := tg.Count(context.Background(), []string{"cpu", "none"})
	if err != nil || got["cpu"] != 9 || got["none"] != 0 {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := tg.Count(context.Background(), []string{"bad"}); err == nil || !strings.Contains(err.Error(), "oops") {
		t.Fatalf("err = %v, want oops", err)
	}
}
