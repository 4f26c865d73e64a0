package influx

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// The v3 tests run against the real InfluxDB 3 Core of
// scripts/start_influxdb.sh --version 3 (internal/influx3test.RealServer;
// they fail under CI=true without it). internal/influx3test's stand-in is
// used only for what the real server cannot be made to do, each such test
// saying why.

const v3Token = "v3-t0ken-never-printed"

func v3Server(t *testing.T) *influx3test.Server {
	s := influx3test.New()
	s.SetToken(v3Token)
	t.Cleanup(s.Close)
	return s
}

// v3Where is a server to load into: URL, token and database.
type v3Where struct{ url, token, db string }

// v3Real is the real InfluxDB 3 and a database of the test's own, dropped
// at the end.
func v3Real(t *testing.T) (influx3test.Real, v3Where) {
	r := influx3test.RealServer(t)
	db := influx3test.UniqueDB(t)
	r.DropAtEnd(t, db)
	return r, v3Where{r.URL, r.Token, db}
}

// standIn is the stand-in with database "bench".
func standIn(s *influx3test.Server) v3Where { return v3Where{s.URL, v3Token, "bench"} }

// v3Load runs data through the runner into the database of at, the API
// detected from the server.
func v3Load(t *testing.T, at v3Where, data string, mod func(*Config, *runner.Config)) (*results.Results, error, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Conn: httpwrite.Conn{URLs: []string{at.url}, Gzip: true, GzipLevel: 1, RequestTimeout: 30 * time.Second}, Precision: "n", Token: at.token}
	var stderr bytes.Buffer
	rc := runner.Config{
		Inputs: []string{path}, BatchSize: 1000, Workers: 2, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 20 * time.Second, Stderr: &stderr,
		Prepare: load.PrepareOptions{DBName: at.db, CreateDB: true, DropDB: true},
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
	for _, secret := range []string{v3Token, at.token} {
		if strings.Contains(stderr.String(), secret) || err != nil && strings.Contains(err.Error(), secret) {
			t.Fatalf("the token was printed:\n%s\n%v", stderr.String(), err)
		}
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

// TestV3Load: on the real server the API is detected from /ping (with the
// token), the batches go gzip-compressed to /api/v3/write_lp, and the count
// through /api/v3/query_sql is exact, with and without --no-sync (whose
// acknowledged rows become countable only later: Await waits for them).
func TestV3Load(t *testing.T) {
	r, at := v3Real(t)
	for _, noSync := range []bool{false, true} {
		res, err, log := v3Load(t, at, v3Data(5000), func(c *Config, rc *runner.Config) {
			c.NoSync = noSync
			rc.BatchSize = 2500 // a sync write waits for the WAL flush (1 s)
		})
		if err != nil {
			t.Fatalf("no_sync=%v: %v\n%s", noSync, err, log)
		}
		if res.Rows != 5000 || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != 3333 || res.Verify.Actual["mem"] != 1667 ||
			strings.Contains(log, "another client") {
			t.Fatalf("no_sync=%v: rows %d verify %+v\n%s", noSync, res.Rows, res.Verify, log)
		}
		if n := r.Count(t, at.db, "cpu"); n != 3333 {
			t.Fatalf("no_sync=%v: the server holds %d cpu rows", noSync, n)
		}
	}
}

// TestV3Requests: every write goes to the native endpoint with the batch's
// settings, gzip-compressed and with the token. Stand-in: the real server
// does not show the requests it received.
func TestV3Requests(t *testing.T) {
	s := v3Server(t)
	res, err, log := v3Load(t, standIn(s), v3Data(5000), func(c *Config, _ *runner.Config) { c.NoSync = true })
	if err != nil || res.Rows != 5000 || !res.Verify.OK {
		t.Fatalf("%v\n%s", err, log)
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
}

// TestV3Old: rows of 2016, years older than the server's default query
// window, spread over 40 days, are counted exactly: a COUNT(*) without a
// time range sees them.
func TestV3Old(t *testing.T) {
	r, at := v3Real(t)
	var b strings.Builder
	const rows = 9600 // 10 hosts, one point per hour for 40 days
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "old,host=h%d v=%di %d\n", i%10, i, int64(1451606400+(i/10)*3600))
	}
	res, err, log := v3Load(t, at, b.String(), func(c *Config, rc *runner.Config) { c.Precision = "s"; rc.BatchSize = 5000 })
	if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["old"] != rows {
		t.Fatalf("%v verify %+v\n%s", err, res.Verify, log)
	}
	if n := r.Count(t, at.db, "old"); n != rows {
		t.Fatalf("the server counts %d rows", n)
	}
}

// TestV3OldPersisted: the same rows once persisted (a private server that
// writes Parquet files at every WAL flush): 40 days in 10-minute files are
// more than the 432 files the server lets one query read, so a plain
// COUNT(*) is refused; the target counts in time ranges, exactly.
func TestV3OldPersisted(t *testing.T) {
	influx3test.RealServer(t)
	in := influx3test.StartInstance(t, "old", influx3test.InstanceOptions{Args: "--wal-snapshot-size 1"})
	at := v3Where{in.URL, in.Token, "old"}
	var b, ns strings.Builder
	const rows = 9600
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "old,host=h%d v=%di %d\n", i%10, i, int64(1451606400+(i/10)*3600))
		fmt.Fprintf(&ns, "old,host=h%d v=%di %d\n", i%10, i, int64(1451606400+(i/10)*3600)*1e9)
	}
	// Ten writes, each its own WAL file: a snapshot follows a few, not the first.
	res, err, log := v3Load(t, at, b.String(), func(c *Config, rc *runner.Config) { c.Precision = "s"; rc.Workers = 1 })
	if err != nil || !res.Verify.OK {
		t.Fatalf("%v\n%s", err, log)
	}
	sql := func(q string) (int, string) {
		st, body, err := in.Do("POST", "/api/v3/query_sql", map[string]string{"db": "old", "q": q, "format": "json"})
		if err != nil {
			t.Fatal(err)
		}
		return st, body
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if st, body := sql("SELECT COUNT(*) AS n FROM old"); st != 200 && strings.Contains(body, "exceed file limit of 432 parquet files") {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no file limit after 60 s: %d %s", st, body)
		}
	}
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{in.URL}}, API: APIv3, DBName: "old", Precision: "s", Token: in.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if n, err := tg.Count(context.Background(), []string{"old"}); err != nil || n["old"] != rows {
		t.Fatalf("count %v %v, want %d", n, err, rows)
	}
	// Content too, in the same parts, every aggregate exact.
	read := contenttest.ReadILP(t, ns.String())["old"]
	found, err := tg.Content(context.Background(), []fingerprint.Query{contenttest.Query(read, "host")})
	if err != nil {
		t.Fatal(err)
	}
	if bad := contenttest.Verify(read, found["old"], true); bad != "" || found["old"].Series != 10 {
		t.Fatalf("content over the file limit: %+v\n%s", found["old"], bad)
	}
}

// TestV3Precision: --precision s, ms, u and n reach the server as its
// precision names and land at the same instant.
func TestV3Precision(t *testing.T) {
	r, at := v3Real(t)
	for _, tc := range []struct{ p, ts string }{{"s", "1451606400"}, {"ms", "1451606400000"}, {"u", "1451606400000000"}, {"n", "1451606400000000000"}} {
		res, err, log := v3Load(t, at, "p,prec="+tc.p+" v=1i "+tc.ts+"\n", func(c *Config, rc *runner.Config) {
			c.Precision = tc.p
			rc.Prepare.DropDB = tc.p == "s"
		})
		if err != nil || res.Rows != 1 {
			t.Fatalf("%s: %v\n%s", tc.p, err, log)
		}
	}
	st, body, err := r.Do("POST", "/api/v3/query_sql", map[string]string{"db": at.db, "format": "json",
		"q": "SELECT COUNT(*) AS n FROM p WHERE time = '2016-01-01T00:00:00Z'"})
	if err != nil || st != 200 || body != `[{"n":4}]` {
		t.Fatalf("rows at 2016-01-01T00:00:00Z: %d %s %v", st, body, err)
	}
}

// TestV3RefusedLine: without --accept-partial a bad line refuses its batch
// (nothing of it written); the error names the input line, and no row of
// the batch is counted.
func TestV3RefusedLine(t *testing.T) {
	r, at := v3Real(t)
	data := v3Data(2500)
	lines := strings.Split(data, "\n")
	// Line 1503 of the input (inside the second batch: 1000 rows + a
	// comment and a blank line before it).
	lines[1502] = "cpu,host=x v=oops 1"
	res, err, log := v3Load(t, at, strings.Join(lines, "\n"), func(_ *Config, rc *runner.Config) { rc.Workers = 1 })
	if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "in.ilp: records 1001-2000") ||
		!strings.Contains(err.Error(), "nothing of it written (400 parsing failed for write_lp endpoint): line 1503: invalid line:") ||
		!strings.Contains(err.Error(), "AcceptPartial") {
		t.Fatalf("err = %v\n%s", err, log)
	}
	if n := r.Count(t, at.db, "cpu") + r.Count(t, at.db, "mem"); res.Rows != 1000 || n != 1000 {
		t.Fatalf("rows %d, server %d: want only the first batch", res.Rows, n)
	}
}

// TestV3AcceptPartial: with --accept-partial the valid lines are written,
// the refused ones reported with their input line numbers, and without
// --skip-invalid the run fails after counting exactly what was written.
func TestV3AcceptPartial(t *testing.T) {
	r, at := v3Real(t)
	data := v3Data(2000)
	lines := strings.Split(data, "\n")
	lines[4] = "cpu,host=h4 v=oops 1700000000000000000"
	lines[1700] = `cpu,host=h1 v="a string" 1700000000000000000` // v is an integer column
	for _, skip := range []bool{false, true} {
		res, err, log := v3Load(t, at, strings.Join(lines, "\n"), func(c *Config, rc *runner.Config) {
			c.AcceptPartial = true
			rc.SkipInvalid = skip
		})
		if res.Rows != 1998 || res.RejectedRows != 2 {
			t.Fatalf("skip=%v: rows %d rejected %d\n%s", skip, res.Rows, res.RejectedRows, log)
		}
		if n := r.Count(t, at.db, "cpu") + r.Count(t, at.db, "mem"); n != 1998 {
			t.Fatalf("skip=%v: the server holds %d rows", skip, n)
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
}

// TestV3TypeConflict: a column whose type changes inside a batch, or in a
// later batch, refuses that batch (nothing of it written) naming the line;
// with --accept-partial only the conflicting lines are dropped.
func TestV3TypeConflict(t *testing.T) {
	r, at := v3Real(t)
	data := func(at int) string {
		var b strings.Builder
		for i := 0; i < 3000; i++ {
			v := itoa(i) + "i"
			if i == at {
				v = "1.5"
			}
			fmt.Fprintf(&b, "tc,host=h%d v=%s %d\n", i%10, v, int64(1700000000+i)*1e9)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name     string
		line     int // 0-based; batches of 1000
		partial  bool
		rows     int64
		wantErr  string
		wantRows int64
	}{
		{"inside the first batch", 500, false, 0, "records 1-1000 (line 1, byte offset 0): influx: server refused the batch, nothing of it written (400 parsing failed for write_lp endpoint): line 501: schema conflict", 0},
		{"in a later batch", 2500, false, 2000, "records 2001-3000", 2000},
		{"in a later batch, accept partial", 2500, true, 2999, "line 2501: schema conflict (a table's columns keep the kind, tag or field, and the type of their first write): invalid column type for column 'v', expected iox::column_type::field::integer, got iox::column_type::field::float", 2999},
	} {
		res, err, log := v3Load(t, at, data(tc.line), func(c *Config, rc *runner.Config) {
			c.AcceptPartial = tc.partial
			rc.Workers = 1
		})
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || res.Retries != 0 || int64(res.Rows) != tc.rows {
			t.Fatalf("%s: rows %d retries %d err %v\n%s", tc.name, res.Rows, res.Retries, err, log)
		}
		if n := r.Count(t, at.db, "tc"); n != tc.wantRows {
			t.Fatalf("%s: the server holds %d rows, want %d", tc.name, n, tc.wantRows)
		}
	}
}

// TestV3Columns: the server's columns-per-table limit (500 in 3.6.0) is a
// clear error, never retried.
func TestV3Columns(t *testing.T) {
	_, at := v3Real(t)
	var b strings.Builder
	b.WriteString("wide,host=a ")
	for i := 0; i < 510; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "f%d=%di", i, i)
	}
	b.WriteString(" 1700000000000000000\n")
	res, err, log := v3Load(t, at, b.String(), nil)
	if err == nil || res.Retries != 0 || !strings.Contains(err.Error(), "server limit (not retried; raise it on the server or split the data): Update to schema would exceed number of columns per table limit of 500 columns") ||
		strings.Contains(err.Error(), "AcceptPartial") {
		t.Fatalf("columns: %v (retries %d)\n%s", err, res.Retries, log)
	}
}

// TestV3Limits: a body over the server's request limit (a private server
// with a 64 KiB limit; 3.6.0 answers 500, not 413) fails the load once,
// naming the limit and a batch size under it, nothing written; the limit
// of 5 databases is a clear error, never retried.
func TestV3Limits(t *testing.T) {
	influx3test.RealServer(t)
	in := influx3test.StartInstance(t, "limits", influx3test.InstanceOptions{MaxRequestBytes: 64 << 10})
	at := v3Where{in.URL, in.Token, "big"}
	res, err, log := v3Load(t, at, v3Data(5000), func(c *Config, rc *runner.Config) { rc.BatchSize = 5000 })
	if err == nil || res.Retries != 0 || res.Rows != 0 ||
		!strings.Contains(err.Error(), "request body too large, nothing of the batch written (500 max request size (65536 bytes) exceeded): the server takes at most 65536 bytes per request, decompressed; lower BatchSize to ") {
		t.Fatalf("size: %v (retries %d, rows %d)\n%s", err, res.Retries, res.Rows, log)
	}
	for i := 0; i < 4; i++ {
		if st, body, err := in.Do("POST", "/api/v3/configure/database", map[string]string{"db": "d" + itoa(i)}); err != nil || st != 200 {
			t.Fatalf("create d%d: %d %s %v", i, st, body, err)
		}
	}
	_, err, log = v3Load(t, v3Where{in.URL, in.Token, "sixth"}, "cpu,host=a v=1i 1\n", nil)
	if err == nil || !strings.Contains(err.Error(), "create database: server limit (not retried; raise it on the server or split the data): Adding a new database would exceed limit of 5 databases (422)") {
		t.Fatalf("databases: %v\n%s", err, log)
	}
}

// TestV3ImmutableTagSet: a 3.0 pre-release refuses a tag that the table's
// first write did not have; the loader names it as a schema conflict and
// does not retry. Stand-in: 3.6.0 adds the tag (checked in
// internal/influx3test's conformance table).
func TestV3ImmutableTagSet(t *testing.T) {
	s := v3Server(t)
	s.SetImmutableTags(true)
	res, err, log := v3Load(t, standIn(s), "cpu,host=a v=1i 1\ncpu,host=a v=2i 2\n", nil)
	if err != nil || res.Rows != 2 {
		t.Fatalf("%v\n%s", err, log)
	}
	res, err, log = v3Load(t, standIn(s), "cpu,host=a v=1i 1\ncpu,host=a,rack=r1 v=2i 2\n", func(_ *Config, rc *runner.Config) { rc.Prepare.DropDB = false })
	if err == nil || res.Retries != 0 || !strings.Contains(err.Error(), "in.ilp: records 1-2 (line 1, byte offset 0): influx: server refused the batch, nothing of it written (400 parsing failed for write_lp endpoint): line 2: schema conflict (this server fixes a table's tags at its first write; write the new tag to another table): Detected a new tag 'rack' in write. The tag set is immutable on first write to the table.") {
		t.Fatalf("err = %v (retries %d)\n%s", err, res.Retries, log)
	}
}

// TestV3Retries: 429 (overloaded) and 500 wal buffer full are retried; the
// load then completes exactly. Stand-in: the real server cannot be made to
// answer either on demand.
func TestV3Retries(t *testing.T) {
	s := v3Server(t)
	s.Overloaded(2)
	s.WALFull(1)
	res, err, log := v3Load(t, standIn(s), v3Data(3000), nil)
	if err != nil || res.Retries != 3 || !res.Verify.OK {
		t.Fatalf("err %v retries %d verify %+v\n%s", err, res.Retries, res.Verify, log)
	}
	if !strings.Contains(log, "server busy (429 this service is overloaded, please try again later)") || !strings.Contains(log, "write-ahead log full (500 write buffer error: error from wal: wal buffer full") {
		t.Fatalf("retries not reported:\n%s", log)
	}
}

// TestV3Prepare: --drop-db, --do-abort-on-exist and --do-create-db=false
// through /api/v3/configure/database on the real server.
func TestV3Prepare(t *testing.T) {
	r, at := v3Real(t)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{r.URL}}, Precision: "n", Token: r.Token})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if api, err := tg.API(ctx); err != nil || api != APIv3 {
		t.Fatalf("api %q %v", api, err)
	}
	db := at.db
	exists := func() bool {
		st, body, err := r.Do("GET", "/api/v3/configure/database?format=json", nil)
		if err != nil || st != 200 {
			t.Fatalf("list: %d %s %v", st, body, err)
		}
		return strings.Contains(body, `"iox::database":"`+db+`"`)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db}); err == nil || !strings.Contains(err.Error(), `database "`+db+`" does not exist`) {
		t.Fatalf("missing: %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true}); err != nil || !exists() {
		t.Fatalf("create: %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true, AbortOnExist: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("abort on exist: %v", err)
	}
	w, _ := tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	if n := r.Count(t, db, "m"); n != 1 {
		t.Fatalf("%d rows written", n)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}); err != nil || !exists() || r.Count(t, db, "m") != 0 {
		t.Fatalf("drop: %v", err)
	}
	if n, err := tg.Count(ctx, []string{"m", "nothing"}); err != nil || n["m"] != 0 || n["nothing"] != 0 {
		t.Fatalf("count after drop: %v %v", n, err)
	}
	// The dropped database was deleted hard, not soft (a soft-deleted one
	// stays listed, renamed db-<time>, for 72 hours, its tables counting
	// against the server's table limit): it leaves the catalog once the
	// server's delete grace period has passed (5 s as the scripts start it).
	for wait := 0; ; wait++ {
		st, body, err := r.Do("GET", "/api/v3/configure/database?format=json&show_deleted=true", nil)
		if err != nil || st != 200 {
			t.Fatalf("list deleted: %d %s %v", st, body, err)
		}
		if !strings.Contains(body, `"iox::database":"`+db+`-`) {
			break
		}
		if wait == 120 {
			t.Fatalf("the dropped database is still in the catalog after 60 s (soft-deleted, or a server started with a delete grace period longer than the scripts' 5 s):\n%s", body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, DropDB: true}); err == nil || !strings.Contains(err.Error(), "does not exist") || exists() {
		t.Fatalf("drop without create: %v (exists %v)", err, exists())
	}
}

// TestV3Auth: the real server (auth on, as installed) answers 401 without
// the token or with a wrong one; the loader says a token is needed.
func TestV3Auth(t *testing.T) {
	r := influx3test.RealServer(t)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Conn: httpwrite.Conn{URLs: []string{r.URL}}, Precision: "n"}, "a server that wants a token for it is InfluxDB 3: give the token (Token)"},
		{Config{Conn: httpwrite.Conn{URLs: []string{r.URL}}, Precision: "n", API: APIv3, Token: "wrong"}, "authentication failed (401): InfluxDB 3 needs a token"},
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

// TestV3NoSyncAwait: rows acknowledged with no_sync that become countable
// 1.5 s later are waited for, and verified without a false "another client";
// rows that never arrive end the wait after v3Settle, and verification
// fails naming the missing rows. Stand-in: 3.6.0's lag varies with its load
// (75,000 of 108,000 rows countable at first in one run) and cannot be set.
func TestV3NoSyncAwait(t *testing.T) {
	s := v3Server(t)
	s.SetNoSyncLag(1500 * time.Millisecond)
	res, err, log := v3Load(t, standIn(s), v3Data(3000), func(c *Config, _ *runner.Config) { c.NoSync = true })
	if err != nil || !res.Verify.OK || strings.Contains(log, "another client") || strings.Contains(log, "verify: influx") {
		t.Fatalf("%v verify %+v\n%s", err, res.Verify, log)
	}
	defer func(d time.Duration) { v3Settle = d }(v3Settle)
	v3Settle = 300 * time.Millisecond
	s.SetNoSyncLag(time.Hour)
	// Without v3Settle the wait would last the stand-in's hour of lag
	// (the test's -timeout).
	res, err, log = v3Load(t, standIn(s), v3Data(3000), func(c *Config, _ *runner.Config) { c.NoSync = true })
	if err == nil || res.Verify.OK || !strings.Contains(log, "verify: influx: acknowledged rows: nothing more became countable within 300ms: cpu has 0 of 2000 rows, mem has 0 of 1000 rows") {
		t.Fatalf("%v verify %+v\n%s", err, res.Verify, log)
	}
}

// TestV3SyncAwait: rows of writes that waited for the write-ahead log and
// become countable 1.5 s after their answer (3.6.0 did this on a busy
// machine) are waited for and verified, without a false "another client".
func TestV3SyncAwait(t *testing.T) {
	s := v3Server(t)
	s.SetSyncLag(1500 * time.Millisecond)
	res, err, log := v3Load(t, standIn(s), v3Data(3000), nil)
	if err != nil || !res.Verify.OK || strings.Contains(log, "another client") {
		t.Fatalf("%v verify %+v\n%s", err, res.Verify, log)
	}
}
