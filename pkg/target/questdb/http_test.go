package questdb

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
)

// The 400 body is what QuestDB 9.3.4 answered for a bad field value.
const bad400 = `{"code":"invalid","message":"failed to parse line protocol:errors encountered on line(s):\nerror in line 2: Could not parse entire line, field value is invalid. Field: v; value: oops","line":2,"errorId":"2cb7ce9256bb-1"}`

func ilpBatch(data string, firstLine int64) *load.Batch {
	rows := 0
	for _, l := range strings.Split(data, "\n") {
		if !skippable([]byte(l)) {
			rows++
		}
	}
	return &load.Batch{Format: format.ILP, Data: []byte(data), Rows: rows, Source: "in.ilp",
		FirstLine: firstLine, FirstRecord: firstLine, Tables: []load.TableRows{{Name: "t", Rows: int64(rows)}}}
}

func TestClassify(t *testing.T) {
	b := ilpBatch("# comment\nt v=1 1\n\nt v=oops 2\nt v=3 3\n", 101)
	tests := []struct {
		status    int
		body      string
		rows      int
		retryable bool
		wantErr   []string
	}{
		{status: 204, rows: 3},
		{status: 200, rows: 3},
		{status: 400, body: bad400, wantErr: []string{"HTTP 400", "input line 104:", "field value is invalid", `[line: "t v=oops 2"]`, "code invalid, errorId 2cb7ce9256bb-1", "rolled back"}},
		{status: 400, body: `{"code":"invalid","message":"x","line":9,"errorId":"e"}`, wantErr: []string{"request line 9: x"}},
		{status: 401, body: `not json`, wantErr: []string{"HTTP 401", "not json"}},
		{status: 413, body: `{"code":"request too large","message":"line too long"}`, wantErr: []string{"HTTP 413", "line too long"}},
		{status: 500, body: `{"code":"internal error","message":"commit failed"}`, retryable: true, wantErr: []string{"HTTP 500 (retryable)", "commit failed"}},
	}
	for _, s := range []int{503, 504, 507, 509, 523, 524, 529, 599} {
		tests = append(tests, struct {
			status    int
			body      string
			rows      int
			retryable bool
			wantErr   []string
		}{status: s, retryable: true, wantErr: []string{"retryable"}})
	}
	for _, tt := range tests {
		ack, err := classify(tt.status, []byte(tt.body), b)
		if tt.wantErr == nil {
			if err != nil || ack.Rows != tt.rows {
				t.Errorf("%d: ack %+v err %v, want %d rows", tt.status, ack, err, tt.rows)
			}
			continue
		}
		if err == nil {
			t.Errorf("%d: no error", tt.status)
			continue
		}
		if ack.Rows != 0 {
			t.Errorf("%d: error with %d rows acknowledged", tt.status, ack.Rows)
		}
		if load.IsRetryable(err) != tt.retryable {
			t.Errorf("%d: retryable = %v, want %v (%v)", tt.status, load.IsRetryable(err), tt.retryable, err)
		}
		// The runner prefixes the batch position; classify must not repeat it.
		if strings.Contains(err.Error(), b.Source) || strings.Contains(err.Error(), "records 101-") {
			t.Errorf("%d: error repeats the batch position: %v", tt.status, err)
		}
		for _, w := range tt.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%d: error %q lacks %q", tt.status, err, w)
			}
		}
	}
}

func TestHTTPWriter(t *testing.T) {
	var gotBody, gotAuth, gotQuery string
	status := 204
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		gotBody, gotAuth, gotQuery = string(body), r.Header.Get("Authorization"), r.URL.RawQuery
		if r.URL.Path != "/write" || r.Method != http.MethodPost {
			http.Error(w, "wrong endpoint", 404)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	ctx := context.Background()

	tg, err := New(Config{URL: srv.URL + "/", Token: "secret-token"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := ilpBatch("# comment\nt v=1 1\n  \nt v=2 2\n", 1)
	ack, err := w.Write(ctx, b)
	if err != nil || ack.Rows != 2 {
		t.Fatalf("Write: %+v %v", ack, err)
	}
	if gotBody != "t v=1 1\nt v=2 2\n" || gotQuery != "precision=n" || gotAuth != "Bearer secret-token" {
		t.Errorf("server got body %q query %q auth %q", gotBody, gotQuery, gotAuth)
	}

	status, answer = 503, `{"code":"busy","message":"try later"}`
	if _, err := w.Write(ctx, b); !load.IsRetryable(err) {
		t.Errorf("503: %v, want retryable", err)
	}
	status, answer = 400, `{"code":"invalid","message":"bad","line":2,"errorId":"x-1"}`
	if _, err := w.Write(ctx, b); err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "input line 4: bad") {
		t.Errorf("400: %v, want fatal naming line 4", err)
	}

	csv := &load.Batch{Format: format.CSV, Data: []byte("1,2\n"), Rows: 1, Source: "x.csv"}
	if _, err := w.Write(ctx, csv); err == nil || !strings.Contains(err.Error(), "csv input is not supported") {
		t.Errorf("csv: %v", err)
	}

	// Basic auth.
	tb, _ := New(Config{URL: srv.URL, User: "admin", Password: "quest"})
	wb, _ := tb.NewWriter(ctx, 0)
	status, answer = 204, ""
	if _, err := wb.Write(ctx, b); err != nil || gotAuth != "Basic YWRtaW46cXVlc3Q=" {
		t.Errorf("basic auth: %v, header %q", err, gotAuth)
	}

	// A server that is gone: a network error, retryable.
	srv.Close()
	if _, err := w.Write(ctx, b); !load.IsRetryable(err) {
		t.Errorf("closed server: %v, want retryable", err)
	}
	// A cancelled run is not retried.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.Write(cctx, b); err == nil || load.IsRetryable(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestHTTPWriterTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(204)
	}))
	defer srv.Close()
	defer close(release)
	tg, _ := New(Config{URL: srv.URL, RequestTimeout: 50 * time.Millisecond, MinThroughput: 1 << 30, ProtocolVersion: ProtocolAuto})
	if _, err := tg.NewWriter(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "/settings") {
		t.Fatalf("a server that does not answer /settings: %v", err)
	}
	tg, _ = New(Config{URL: srv.URL, RequestTimeout: 50 * time.Millisecond, MinThroughput: 1 << 30})
	w, _ := tg.NewWriter(context.Background(), 0)
	_, err := w.Write(context.Background(), ilpBatch("t v=1 1\n", 1))
	// The request's own deadline ended it (without one, Write would wait
	// for the server until the test's -timeout).
	if !load.IsRetryable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v, want a retryable deadline", err)
	}
}

func TestRequestTimeout(t *testing.T) {
	tg, _ := New(Config{URL: "http://x:1", RequestTimeout: 10 * time.Second, MinThroughput: 100 * 1024})
	if got, want := tg.requestTimeout(1024*1024), 10*time.Second+10240*time.Millisecond; got != want {
		t.Errorf("requestTimeout(1 MiB) = %v, want %v", got, want)
	}
}

// TestNewConfigErrors: New refuses what cannot work, naming the Config
// fields (a command names its flags instead).
func TestNewConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Transport: "udp", URL: "http://x:1"}, `unknown Transport "udp"`},
		{Config{URL: "x:9000"}, "want http://"},
		{Config{Transport: HTTP}, "needs an HTTP URL"},
		{Config{Transport: TCP, TCPAddr: "nohost"}, "ILP/TCP address"},
		{Config{Transport: TCP, TCPAddr: "h:9009"}, "for queries"},
		{Config{URL: "http://x:1", UseCase: "nope"}, `unknown use case "nope"`},
		// ILP/TCP has no Content-Encoding: gzip there would silently not happen.
		{Config{Transport: TCP, TCPAddr: "h:9009", URL: "http://x:1", Gzip: true, GzipLevel: 1}, "Gzip applies to ILP/HTTP only (not Transport tcp)"},
		{Config{URL: "http://x:1", Gzip: true, GzipLevel: 10}, "invalid GzipLevel 10 (want 1-9)"},
		{Config{URL: "http://x:1", Gzip: true}, "invalid GzipLevel 0 (want 1-9)"},
	} {
		if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

// BenchmarkHTTPWriter measures the writer's own cost per batch against a
// server that answers 204 at once.
func BenchmarkHTTPWriter(b *testing.B) {
	tg, _ := New(Config{URL: loadtest.DiscardServer(b)})
	defer tg.Close()
	w, _ := tg.NewWriter(context.Background(), 0)
	line := "cpu,hostname=host_1,region=eu-west-1 usage_user=58.1,usage_system=2.2,usage_idle=24.5 1451606400000000000\n"
	loadtest.BenchWrite(b, w, ilpBatch(strings.Repeat(line, 5000), 1))
}

// TestOneServer: New refuses writes and SQL on different hosts; the names
// of one loopback are one host.
func TestOneServer(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string // "" for accepted
	}{
		{Config{URL: "http://127.0.0.1:9000", PG: "postgres://admin:quest@localhost:8812/qdb"}, ""},
		{Config{URL: "http://[::1]:9000", PG: "postgres://admin:quest@127.0.0.1:8812/qdb"}, ""},
		{Config{URL: "http://DB.example:9000", PG: "postgres://admin:quest@db.example:8812/qdb"}, ""},
		{Config{Transport: TCP, TCPAddr: "db:9009", URL: "http://db:9000", PG: "postgres://a@db/qdb"}, ""},
		{Config{URL: "http://db:9000", PG: "postgres://admin:quest@127.0.0.1:8812/qdb"}, `write to host "db" (URL) and run its SQL (tables, counts, verification) on host "127.0.0.1" (PG)`},
		{Config{Transport: TCP, TCPAddr: "db:9009", URL: "http://127.0.0.1:9000"}, `write to host "db" (TCPAddr) and run its SQL (tables, counts, verification) on host "127.0.0.1" (URL)`},
		{Config{Transport: TCP, TCPAddr: "db:9009", PG: "postgres://a@other/qdb"}, `on host "other" (PG)`},
	} {
		_, err := New(tc.cfg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("New(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// TestPGScheme: a --pg of a misspelt scheme is named as such, not parsed
// as key=value settings and quoted back garbled (issue 43 item 15).
func TestPGScheme(t *testing.T) {
	_, err := New(Config{URL: "http://127.0.0.1:9000", PG: "postgress://admin:secret@127.0.0.1:8812/qdb"})
	if err == nil || !strings.Contains(err.Error(), `scheme "postgress://" is not PostgreSQL's`) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("err %v", err)
	}
}
