package influx

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// InfluxDB 3 cannot be installed here: these tests run against
// internal/influx3test, a stand-in built from InfluxDB 3's documented API.

const v3Token = "v3-t0ken-never-printed"

func v3Server(t *testing.T) *influx3test.Server {
	s := influx3test.New()
	s.SetToken(v3Token)
	t.Cleanup(s.Close)
	return s
}

// v3Load runs data through the runner into database db of s, the API
// detected from the server.
func v3Load(t *testing.T, s *influx3test.Server, data string, mod func(*Config, *runner.Config)) (*load.Results, error, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{URLs: []string{s.URL}, Precision: "n", Gzip: true, GzipLevel: 1, Token: v3Token, RequestTimeout: 5 * time.Second}
	var stderr bytes.Buffer
	rc := runner.Config{
		Inputs: []string{path}, BatchSize: 1000, Workers: 2, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 20 * time.Second, Stderr: &stderr,
		Prepare: load.PrepareOptions{DBName: "bench", CreateDB: true, DropDB: true},
		Loader:  "load_influx", Target: "influx",
	}
	if mod != nil {
		mod(&cfg, &rc)
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	res, err := runner.Run(context.Background(), rc, tg)
	if strings.Contains(stderr.String(), v3Token) || err != nil && strings.Contains(err.Error(), v3Token) {
		t.Fatalf("the token was printed:\n%s\n%v", stderr.String(), err)
	}
	return res, err, stderr.String()
}

func v3Data(rows int) string {
	var b strings.Builder
	for i := 0; i < rows; i++ {
		if i%1000 == 10 {
			b.WriteString("# a comment\n\n")
		}
		m := "cpu"
		if i%3 == 0 {
			m = "mem"
		}
		b.WriteString(m + ",host=h" + itoa(i%20) + " v=" + itoa(i) + "i " + itoa(1700000000000000000+int64(i/20)*1e9) + "\n")
	}
	return b.String()
}

func itoa[T int | int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// TestV3Load: the API is detected from /ping, every write goes to the
// native /api/v3/write_lp with the batch's settings, gzip-compressed and
// with the token, and the count through /api/v3/query_sql is exact.
func TestV3Load(t *testing.T) {
	s := v3Server(t)
	res, err, log := v3Load(t, s, v3Data(5000), func(c *Config, _ *runner.Config) { c.NoSync = true })
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if res.Rows != 5000 || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != 3333 || res.Verify.Actual["mem"] != 1667 {
		t.Fatalf("rows %d verify %+v\n%s", res.Rows, res.Verify, log)
	}
	reqs := s.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d write requests, want 5 batches", len(reqs))
	}
	for _, r := range reqs {
		if r.Path != "/api/v3/write_lp" || r.Query != "accept_partial=false&db=bench&no_sync=true&precision=nanosecond" ||
			r.ContentEncoding != "gzip" || r.Authorization != "Token "+v3Token {
			t.Fatalf("write request %+v: want the native endpoint, gzip and the token", r)
		}
	}
	if s.Rows("bench", "cpu") != 3333 {
		t.Fatalf("server holds %d cpu rows", s.Rows("bench", "cpu"))
	}
}

// TestV3RefusedLine: without --accept-partial a bad line refuses its batch
// (nothing of it written); the error names the input line, and no row of
// the batch is counted.
func TestV3RefusedLine(t *testing.T) {
	s := v3Server(t)
	data := v3Data(2500)
	lines := strings.Split(data, "\n")
	// Line 1503 of the input (inside the second batch: 1000 rows + a
	// comment and a blank line before it).
	lines[1502] = "cpu,host=x v=oops 1"
	res, err, log := v3Load(t, s, strings.Join(lines, "\n"), func(_ *Config, rc *runner.Config) { rc.Workers = 1 })
	if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "in.ilp: records 1001-2000") ||
		!strings.Contains(err.Error(), "nothing of it written (400 line protocol parsing error): line 1503: invalid line:") ||
		!strings.Contains(err.Error(), "AcceptPartial") {
		t.Fatalf("err = %v\n%s", err, log)
	}
	if res.Rows != 1000 || s.Rows("bench", "cpu")+s.Rows("bench", "mem") != 1000 {
		t.Fatalf("rows %d, server %d+%d: want only the first batch", res.Rows, s.Rows("bench", "cpu"), s.Rows("bench", "mem"))
	}
}

// TestV3AcceptPartial: with --accept-partial the valid lines are written,
// the refused ones reported with their input line numbers, and without
// --skip-invalid the run fails after counting exactly what was written.
func TestV3AcceptPartial(t *testing.T) {
	s := v3Server(t)
	data := v3Data(2000)
	lines := strings.Split(data, "\n")
	lines[4] = "cpu,host=h4 v=oops 1700000000000000000"
	lines[1700] = `cpu,host=h1 v="a string" 1700000000000000000` // v is an integer column
	for _, skip := range []bool{false, true} {
		res, err, log := v3Load(t, s, strings.Join(lines, "\n"), func(c *Config, rc *runner.Config) {
			c.AcceptPartial = true
			rc.SkipInvalid = skip
		})
		if res.Rows != 1998 || res.RejectedRows != 2 {
			t.Fatalf("skip=%v: rows %d rejected %d\n%s", skip, res.Rows, res.RejectedRows, log)
		}
		if !skip {
			if err == nil || !strings.Contains(err.Error(), "in.ilp: line 5: invalid line:") ||
				!strings.Contains(err.Error(), "in.ilp: line 1701: schema conflict (a table's columns keep the kind, tag or field, and the type of their first write): invalid column type for column 'v', expected iox::column_type::field::integer, got iox::column_type::field::string") {
				t.Fatalf("err = %v\n%s", err, log)
			}
			continue
		}
		if err != nil || res.Verify == nil || !res.Verify.OK {
			t.Fatalf("skip-invalid: %v verify %+v\n%s", err, res.Verify, log)
		}
	}
	for _, r := range s.Requests() {
		if !strings.Contains(r.Query, "accept_partial=true") {
			t.Fatalf("query %q", r.Query)
		}
	}
}

// TestV3Limits: the server's limits are clear errors, never retried.
func TestV3Limits(t *testing.T) {
	s := v3Server(t)
	s.SetLimits(0, 0, 3) // time, host, v
	res, err, log := v3Load(t, s, "cpu,host=a v=1i 1\ncpu,host=a v=2i,w=3i 2\n", nil)
	if err == nil || res.Retries != 0 || !strings.Contains(err.Error(), "server limit (not retried; raise it on the server or split the data): Update to schema would exceed number of columns per table limit of 3 columns") ||
		strings.Contains(err.Error(), "AcceptPartial") {
		t.Fatalf("columns: %v (retries %d)\n%s", err, res.Retries, log)
	}
	s.SetLimits(1, 0, 0) // bench exists now: a second database is refused
	_, err, log = v3Load(t, s, "cpu,host=a v=1i 1\n", func(_ *Config, rc *runner.Config) { rc.Prepare.DBName = "other" })
	if err == nil || !strings.Contains(err.Error(), "create database: server limit (not retried; raise it on the server or split the data): Adding a new database would exceed limit of 1 databases (422)") {
		t.Fatalf("databases: %v\n%s", err, log)
	}
	s.SetLimits(0, 0, 500)
	s.SetMaxRequestBytes(100)
	_, err, log = v3Load(t, s, v3Data(50), func(c *Config, _ *runner.Config) { c.Gzip = false })
	if err == nil || !strings.Contains(err.Error(), "request body too large (413 max request size (100 bytes) exceeded): lower BatchSize") {
		t.Fatalf("size: %v\n%s", err, log)
	}
}

// TestV3ImmutableTagSet: a 3.0 pre-release refuses a tag that the table's
// first write did not have; the loader names it as a schema conflict and
// does not retry.
func TestV3ImmutableTagSet(t *testing.T) {
	s := v3Server(t)
	s.SetImmutableTags(true)
	res, err, log := v3Load(t, s, "cpu,host=a v=1i 1\ncpu,host=a v=2i 2\n", nil)
	if err != nil || res.Rows != 2 {
		t.Fatalf("%v\n%s", err, log)
	}
	res, err, log = v3Load(t, s, "cpu,host=a v=1i 1\ncpu,host=a,rack=r1 v=2i 2\n", func(_ *Config, rc *runner.Config) { rc.Prepare.DropDB = false })
	if err == nil || res.Retries != 0 || !strings.Contains(err.Error(), "in.ilp: records 1-2 (line 1, byte offset 0): influx: server refused the batch, nothing of it written (400 line protocol parsing error): line 2: schema conflict (this server fixes a table's tags at its first write; write the new tag to another table): Detected a new tag 'rack' in write. The tag set is immutable on first write to the table.") {
		t.Fatalf("err = %v (retries %d)\n%s", err, res.Retries, log)
	}
}

// TestV3Retries: 429 (overloaded) and 500 wal buffer full are retried; the
// load then completes exactly.
func TestV3Retries(t *testing.T) {
	s := v3Server(t)
	s.Overloaded(2)
	s.WALFull(1)
	res, err, log := v3Load(t, s, v3Data(3000), nil)
	if err != nil || res.Retries != 3 || !res.Verify.OK {
		t.Fatalf("err %v retries %d verify %+v\n%s", err, res.Retries, res.Verify, log)
	}
	if !strings.Contains(log, "server busy (429 this service is overloaded, please try again later)") || !strings.Contains(log, "write-ahead log full (500 write buffer error: error from wal: wal buffer full") {
		t.Fatalf("retries not reported:\n%s", log)
	}
}

// TestV3Prepare: --drop-db, --do-abort-on-exist and --do-create-db=false
// through /api/v3/configure/database.
func TestV3Prepare(t *testing.T) {
	s := v3Server(t)
	tg, err := New(Config{URLs: []string{s.URL}, Precision: "n", Token: v3Token})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if api, err := tg.API(ctx); err != nil || api != APIv3 {
		t.Fatalf("api %q %v", api, err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "p"}); err == nil || !strings.Contains(err.Error(), `database "p" does not exist`) {
		t.Fatalf("missing: %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "p", CreateDB: true}); err != nil || strings.Join(s.Databases(), ",") != "p" {
		t.Fatalf("create: %v %v", err, s.Databases())
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "p", CreateDB: true, AbortOnExist: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("abort on exist: %v", err)
	}
	w, _ := tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "p", CreateDB: true, DropDB: true}); err != nil || s.Rows("p", "m") != 0 {
		t.Fatalf("drop: %v, %d rows left", err, s.Rows("p", "m"))
	}
	if n, err := tg.Count(ctx, []string{"m", "nothing"}); err != nil || n["m"] != 0 || n["nothing"] != 0 {
		t.Fatalf("count after drop: %v %v", n, err)
	}
}

// TestV3Auth: without the token the server answers 401 to everything; the
// loader says a token is needed.
func TestV3Auth(t *testing.T) {
	s := v3Server(t)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{URLs: []string{s.URL}, Precision: "n"}, "a server that wants a token for it is InfluxDB 3: give the token (Token)"},
		{Config{URLs: []string{s.URL}, Precision: "n", API: APIv3, Token: "wrong"}, "authentication failed (401): InfluxDB 3 needs a token"},
	} {
		tg, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = tg.Prepare(context.Background(), load.PrepareOptions{DBName: "x", CreateDB: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "wrong") {
			t.Fatalf("err = %v, want %q", err, tc.want)
		}
	}
}

// FuzzV3Answer feeds arbitrary 400/422 bodies to the v3 answer reader: it
// never panics, and an acknowledged batch accounts for every row and names
// only lines inside the batch.
func FuzzV3Answer(f *testing.F) {
	f.Add(400, `{"error":"partial write of line protocol occurred","data":[{"error_message":"x","line_number":2,"original_line":"m"}]}`)
	f.Add(422, `{"error":"partial write of line protocol occurred","data":[{"error_message":"Update to schema would exceed number of columns per table limit of 3 columns","line_number":1,"original_line":"m"}]}`)
	f.Add(400, `{"error":"line protocol parsing error","data":{"error_message":"bad","line_number":9,"original_line":"m"}}`)
	f.Add(422, `{"error":"Adding a new database would exceed limit of 5 databases","data":null}`)
	f.Add(400, `not json`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		b := batch("m,h=a v=1 1\n\n# c\nm,h=b v=2 2\nm,h=c v=3 3\n", 40)
		w := &Writer{db: "d"}
		res := &httpwrite.Response{Status: 400 + (status&1)*22, Body: []byte(body), Header: http.Header{}}
		ack, err := apiV3{}.interpret(context.Background(), w, b, res)
		if err != nil {
			return
		}
		if ack.Rows+ack.Dropped != b.Rows || ack.Rows < 0 || len(ack.Rejected) != ack.Dropped {
			t.Fatalf("ack %+v for %d rows", ack, b.Rows)
		}
		for _, r := range ack.Rejected {
			if r.Line != 0 && (r.Line < 40 || r.Line > 44 || r.Line == 41 || r.Line == 42) {
				t.Fatalf("rejected line %d is not a row of the batch", r.Line)
			}
		}
	})
}
