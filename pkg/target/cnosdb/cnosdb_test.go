package cnosdb

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Tests talk to the real CnosDB of scripts/start_cnosdb.sh (CNOSDB_URL to
// use another); they skip when it is down, and fail when CI is set. A test
// that uses the in-process stand-in says why.

func batch(data string, firstLine int64) *load.Batch {
	rows := strings.Count(data, "\n")
	return &load.Batch{Format: format.ILP, Data: []byte(data), Rows: rows, Source: "t.ilp",
		FirstLine: firstLine, FirstRecord: firstLine, Tables: []load.TableRows{{Name: "m", Rows: int64(rows)}}}
}

// realTarget is a target on the real server with a database of the test's
// own (created; dropped when the test ends).
func realTarget(t *testing.T, mod func(*Config)) *Target {
	t.Helper()
	base, db := cnosdbtest.RealDB(t)
	cfg := Config{Conn: httpwrite.Conn{URLs: []string{base}, User: "root", GzipLevel: 1}, Tenant: "cnosdb", Precision: "ns", DBName: db}
	if mod != nil {
		mod(&cfg)
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if err := tg.Prepare(context.Background(), load.PrepareOptions{CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	return tg
}

// standInTarget is a target on the stand-in s.
func standInTarget(t *testing.T, s *cnosdbtest.Server, mod func(*Config)) *Target {
	t.Helper()
	cfg := Config{Conn: httpwrite.Conn{URLs: []string{s.URL}, User: "root", GzipLevel: 1}, Tenant: "cnosdb", Precision: "ns", DBName: "bench"}
	if mod != nil {
		mod(&cfg)
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// count is the server's count(*) of table (0 when never written).
func count(t *testing.T, tg *Target, table string) int64 {
	t.Helper()
	got, err := tg.Count(context.Background(), []string{table})
	if err != nil {
		t.Fatal(err)
	}
	return got[table]
}

func TestWriteAnswers(t *testing.T) {
	tg := realTarget(t, func(c *Config) { c.Gzip = true })
	ctx := context.Background()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	other := func(mod func(*Config)) load.Writer {
		cfg := tg.cfg
		mod(&cfg)
		o, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ow, _ := o.NewWriter(ctx, 0)
		return ow
	}
	good := "m,h=a v=1 1\nm,h=b v=2 2\n"
	tests := []struct {
		name    string
		w       load.Writer
		data    string
		rows    int
		errText string
	}{
		{"ok", w, good, 2, ""},
		{"again: merged with the rows it repeats", w, good, 2, ""},
		{"bad line", w, "m,h=c v=1 3\nm v=oops x 3\n", 0, "422 [040004] Error parsing message: "},
		{"field type", w, "m,h=c v=1 3\nm,h=d v=\"s\" 4\n", 0, "422 [050014] line to batch error: Expected string column): a field's type differs within the batch"},
		{"tag named like a field", w, "m,h=c,v=t w=1 3\n", 0, "Column 'v' type error, found TAG expected F64): a field's type differs from the one the table already holds"},
		{"field named time", w, "m,h=c time=1.5 3\n", 0, "Expected i64 type as time column): a tag or field of the batch is named time"},
		{"integer field named time", w, "m,h=c time=5i,v=1 3\n", 0, "Time column not found in flatbuffer columns): a tag or field of the batch is named time"},
		{"tag named time", w, "m,time=c v=1 3\n", 0, "CnosDB reserves that name for the timestamp column"},
		{"unknown database", other(func(c *Config) { c.DBName += "_missing" }), good, 0, "422 [030017] Database not found"},
		{"unknown tenant", other(func(c *Config) { c.Tenant = "nope" }), good, 0, "422 [010016] Auth error: The tenant nope not found): check Tenant"},
		{"unknown user", other(func(c *Config) { c.User = "nobody" }), good, 0, "422 [010016] Auth error: The user nobody not found): check the user (User) and password (Password)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ack, err := tc.w.Write(ctx, batch(tc.data, 10))
			if tc.errText == "" {
				if err != nil || ack.Rows != tc.rows {
					t.Fatalf("ack %+v err %v", ack, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errText) || load.IsRetryable(err) {
				t.Fatalf("err = %v (retryable %v), want fatal %q", err, load.IsRetryable(err), tc.errText)
			}
			// The runner prefixes the batch position; the writer must not
			// repeat it.
			if !strings.HasPrefix(err.Error(), "cnosdb: ") || strings.Contains(err.Error(), "records 10-") {
				t.Fatalf("error repeats the batch position or lacks the target: %v", err)
			}
		})
	}
	if n := count(t, tg, "m"); n != 2 {
		t.Fatalf("server holds %d rows, want 2 (a refused batch writes nothing of itself)", n)
	}
}

// TestWriteBuckets: CnosDB applies a request per time bucket (vnode): when
// a field clashes with its table's type in one bucket, the rows of the
// other buckets are written although the request is refused. The error
// says so; the batch is not counted.
func TestWriteBuckets(t *testing.T) {
	tg := realTarget(t, func(c *Config) { c.VnodeDuration = "1d" })
	ctx := context.Background()
	w, _ := tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	const day = 24 * 3600 * 1e9
	ack, err := w.Write(ctx, batch(fmt.Sprintf("m,h=b v=\"s\" 2\nm,h=c v=1 %d\n", int64(5*day)), 2))
	if err == nil || ack.Rows != 0 || load.IsRetryable(err) || !strings.Contains(err.Error(), "rows of this batch in other buckets may have been written") {
		t.Fatalf("ack %+v err %v, want a fatal refusal saying other buckets may be written", ack, err)
	}
	if n := count(t, tg, "m"); n != 2 {
		t.Fatalf("server holds %d rows, want 2 (the first row and the other bucket's)", n)
	}
}

// TestWriteTTL: a batch with a row older than the database's TTL is
// refused whole, with a hint.
func TestWriteTTL(t *testing.T) {
	tg := realTarget(t, func(c *Config) { c.TTL = "10d" })
	ctx := context.Background()
	w, _ := tg.NewWriter(ctx, 0)
	now := time.Now().UnixNano()
	_, err := w.Write(ctx, batch(fmt.Sprintf("m,h=new v=1 %d\nm,h=old v=1 1\n", now), 1))
	if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "[030034]") || !strings.Contains(err.Error(), "older than the database's TTL") {
		t.Fatalf("err = %v, want a fatal 030034 with the TTL hint", err)
	}
	if n := count(t, tg, "m"); n != 0 {
		t.Fatalf("server holds %d rows of the refused batch", n)
	}
	if _, err := w.Write(ctx, batch(fmt.Sprintf("m,h=new v=1 %d\n", now), 1)); err != nil {
		t.Fatal(err)
	}
}

// TestPrecision: ms and us timestamps land at the same instant as ns.
func TestPrecision(t *testing.T) {
	base := realTarget(t, nil)
	ctx := context.Background()
	for _, p := range []struct{ prec, ts string }{{"ns", "1600000000123000000"}, {"us", "1600000000123000"}, {"ms", "1600000000123"}} {
		cfg := base.cfg
		cfg.Precision = p.prec
		tg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := tg.NewWriter(ctx, 0)
		if _, err := w.Write(ctx, batch("m,h=a v=1 "+p.ts+"\n", 1)); err != nil {
			t.Fatalf("%s: %v", p.prec, err)
		}
	}
	rows, err := base.SQL(ctx, base.cfg.DBName, "SELECT time FROM m")
	if err != nil || len(rows) != 1 || rows[0]["time"] != "2020-09-13T12:26:40.123" {
		t.Fatalf("rows %v %v, want one row at 2020-09-13T12:26:40.123", rows, err)
	}
}

// TestWriteTooLarge: a body over the server's limit (here a CnosDB of the
// test's own with a 1 KiB limit instead of 160 MiB) is 413: fatal, with
// the batch's size and what to change.
func TestWriteTooLarge(t *testing.T) {
	cnosdbtest.RealURL(t) // the same skip rule as the shared server
	in := cnosdbtest.StartInstance(t, "limit", cnosdbtest.InstanceOptions{WriteLimit: "1K"})
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "m,h=h%d v=%d %d\n", i, i, 1600000000000000000+i)
	}
	for _, gzip := range []bool{false, true} {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{in.URL}, User: "root", Gzip: gzip, GzipLevel: 1}, Tenant: "cnosdb", Precision: "ns", DBName: "d"})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		if err := tg.Prepare(context.Background(), load.PrepareOptions{CreateDB: true}); err != nil {
			t.Fatal(err)
		}
		w, _ := tg.NewWriter(context.Background(), 0)
		_, err = w.Write(context.Background(), batch(b.String(), 1))
		switch {
		case !gzip && (err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "too large (413): lower BatchSize (this batch has 100 rows, 3280 bytes before compression) or enable Gzip")):
			t.Fatalf("plain: err = %v, want a fatal 413", err)
		case gzip && err != nil:
			// The limit applies to the compressed body: 3280 bytes gzip to under 1 KiB.
			t.Fatalf("gzip: %v", err)
		}
	}
}

// TestWriteAnswersStandIn: the answers a real server cannot be made to give
// on demand (memory pressure, write timeouts, an empty 500) come from the
// stand-in.
func TestWriteAnswersStandIn(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	tg := standInTarget(t, s, func(c *Config) { c.Gzip = true })
	ctx := context.Background()
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWriter(ctx, 0)
	good := "m,h=a v=1 1\nm,h=b v=2 2\n"
	tests := []struct {
		name      string
		knob      func()
		retryable bool
		errText   string
	}{
		{"memory pressure", func() { s.MemoryExhausted(1) }, true, "422 [050001] Memory Exhausted Retry Later"},
		{"timeout", func() { s.Timeouts(1) }, true, "write vnode timeout"},
		{"empty 500", func() { s.EmptyErrors(1) }, true, "500 with an empty body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.knob()
			_, err := w.Write(ctx, batch(good, 10))
			if err == nil || !strings.Contains(err.Error(), tc.errText) || load.IsRetryable(err) != tc.retryable {
				t.Fatalf("err = %v (retryable %v), want %q retryable %v", err, load.IsRetryable(err), tc.errText, tc.retryable)
			}
		})
	}
	if n := s.Rows("bench", "m"); n != -1 {
		t.Fatalf("server holds %d rows, want none", n)
	}
}

// TestWriteRequest checks the bytes of the request against a recorder.
func TestWriteRequest(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
	}))
	defer srv.Close()
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{srv.URL}, User: "root", Password: "secret"}, Tenant: "t1", Precision: "ms", DBName: "d b"})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWriter(context.Background(), 0)
	if _, err := w.Write(context.Background(), batch("m v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	u, p, ok := got.BasicAuth()
	if got.URL.Path != "/api/v1/write" || got.URL.RawQuery != "db=d+b&precision=ms&tenant=t1" ||
		!ok || u != "root" || p != "secret" || got.ContentLength != 8 || len(got.TransferEncoding) != 0 {
		t.Fatalf("request %s %s auth %v %q %q length %d te %v", got.URL.Path, got.URL.RawQuery, ok, u, p, got.ContentLength, got.TransferEncoding)
	}
	// Basic auth is sent even with no password (CnosDB requires the header).
	tg, _ = New(Config{Conn: httpwrite.Conn{URLs: []string{srv.URL}, User: "root"}, Tenant: "cnosdb", Precision: "ns", DBName: "d"})
	w, _ = tg.NewWriter(context.Background(), 0)
	w.Write(context.Background(), batch("m v=1 1\n", 1))
	if _, _, ok := got.BasicAuth(); !ok {
		t.Fatal("no Authorization header without a password")
	}
}

func TestNetworkErrorRetryable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{closed}, User: "root"}, Tenant: "cnosdb", Precision: "ns", DBName: "d"})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWriter(context.Background(), 0)
	if _, err := w.Write(context.Background(), batch("m v=1 1\n", 1)); err == nil || !load.IsRetryable(err) {
		t.Fatalf("err = %v, want retryable", err)
	}
}

func TestPrepare(t *testing.T) {
	base := cnosdbtest.RealURL(t)
	ctx := context.Background()
	db := cnosdbtest.UniqueDB(t)
	cnosdbtest.DropAtEnd(t, base, db)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, User: "root"}, Tenant: "cnosdb", Precision: "ns",
		TTL: "3650d", Shards: 4, VnodeDuration: "1d", Replica: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if got, want := tg.CreateStatement("Bench"), `CREATE DATABASE IF NOT EXISTS "Bench" WITH TTL '3650d' SHARD 4 VNODE_DURATION '1d' REPLICA 1`; got != want {
		t.Fatalf("statement %q, want %q", got, want)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("no create: err = %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := tg.SQL(ctx, "", "DESCRIBE DATABASE "+ident(db))
	if err != nil || len(rows) != 1 {
		t.Fatalf("describe: %v %v", rows, err)
	}
	if d := rows[0]; fmt.Sprint(d["shard"]) != "4" || d["vnode_duration"] != "1day" || fmt.Sprint(d["replica"]) != "1" || !strings.HasPrefix(fmt.Sprint(d["ttl"]), "9years") {
		t.Fatalf("database options %v", d)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true, AbortOnExist: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("abort on exist: err = %v", err)
	}
	w, _ := tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch(fmt.Sprintf("m v=1 %d\n", time.Now().UnixNano()), 1)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, tg, "m"); n != 1 {
		t.Fatalf("count %d before --drop-db", n)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, tg, "m"); n != 0 {
		t.Fatalf("table survived --drop-db (%d rows)", n)
	}
	if v, err := tg.ServerVersion(ctx); err != nil || !strings.HasPrefix(v, "CnosDB 2.") {
		t.Fatalf("server version %q %v", v, err)
	}
}

// TestCount: CnosDB 2.4.2 has no exact_count; count(*) counts rows merged
// on (series, time) once, and the loader says once which count it used,
// however many times it counts.
func TestCount(t *testing.T) {
	var warn bytes.Buffer
	tg := realTarget(t, func(c *Config) { c.Log = &warn })
	ctx := context.Background()
	w, _ := tg.NewWriter(ctx, 0)
	for i := 0; i < 3; i++ {
		if _, err := w.Write(ctx, batch("m,h=a v=1 1\nm,h=a v=2 1\nm,h=b v=1 1\n", 1)); err != nil {
			t.Fatal(err)
		}
	}
	// Counted twice, as a load with --verify content does (the count,
	// then the content's rows): still one note.
	for i := 0; i < 2; i++ {
		got, err := tg.Count(ctx, []string{"m", "absent"})
		if err != nil || got["m"] != 2 || got["absent"] != 0 {
			t.Fatalf("count: %v %v", got, err)
		}
	}
	if strings.Count(warn.String(), "no exact_count") != 1 {
		t.Fatalf("note %q, want one about exact_count", warn.String())
	}
}

// TestCountExact: the exact_count path of CnosDB 2.4.3 and later is tested
// on the stand-in: no such server builds here (see the README).
func TestCountExact(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	s.SetExactCount(true)
	ctx := context.Background()
	var warn bytes.Buffer
	tg := standInTarget(t, s, func(c *Config) { c.Log = &warn })
	tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true})
	w, _ := tg.NewWriter(ctx, 0)
	w.Write(ctx, batch("m,h=a v=1 1\nm,h=a v=2 1\nm,h=b v=1 1\n", 1))
	got, err := tg.Count(ctx, []string{"m", "absent"})
	if err != nil || got["m"] != 2 || got["absent"] != 0 || warn.Len() != 0 {
		t.Fatalf("exact: %v %v note %q", got, err, warn.String())
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Conn: httpwrite.Conn{URLs: []string{"http://x"}}, Tenant: "cnosdb", Precision: "ns"}
	tests := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Precision = "s" }, `invalid Precision "s"`},
		{func(c *Config) { c.Precision = "n" }, `invalid Precision "n"`},
		{func(c *Config) { c.Tenant = "" }, "empty Tenant"},
		{func(c *Config) { c.TTL = "10 days'; DROP" }, "invalid TTL"},
		{func(c *Config) { c.VnodeDuration = "x" }, "invalid VnodeDuration"},
		{func(c *Config) { c.Shards = -1 }, "invalid Shards -1"},
		{func(c *Config) { c.Gzip, c.GzipLevel = true, 11 }, "invalid GzipLevel 11"},
	}
	for _, tc := range tests {
		c := ok
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	for _, p := range Precisions {
		c := ok
		c.Precision, c.TTL = p, "INF"
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// ilpFile writes rows rows of cpu, each a distinct (host, time), to a file.
func ilpFile(t *testing.T, rows int) (string, int64) {
	var b strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "cpu,hostname=host_%d usage_user=%d.5,usage_idle=1i %d\n", i%10, i, 1600000000000000000+int64(i/10)*1e9)
	}
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, int64(rows)
}

func runnerConfig(path, db string, stderr *bytes.Buffer) runner.Config {
	return runner.Config{
		Inputs: []string{path}, BatchSize: 700, Workers: 3, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 20 * time.Second, Stderr: stderr,
		Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
		Loader:  "load_cnosdb", Target: "cnosdb",
	}
}

func TestRunnerLoad(t *testing.T) {
	tg := realTarget(t, func(c *Config) { c.Gzip = true })
	path, rows := ilpFile(t, 20000)
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runnerConfig(path, tg.cfg.DBName, &stderr), tg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Rows != rows || res.Retries != 0 || res.Verify == nil || !res.Verify.OK || count(t, tg, "cpu") != rows {
		t.Fatalf("rows %d retries %d verify %+v\n%s", res.Rows, res.Retries, res.Verify, stderr.String())
	}
}

// TestRunnerLoadAgain: loading the same file again without --drop-db
// overwrites every row (same series and time): the count stays, and the
// verification says so instead of reporting a loss.
func TestRunnerLoadAgain(t *testing.T) {
	tg := realTarget(t, nil)
	path, rows := ilpFile(t, 5000)
	for i := 0; i < 2; i++ {
		var stderr bytes.Buffer
		cfg := runnerConfig(path, tg.cfg.DBName, &stderr)
		cfg.Prepare.DropDB = false
		res, err := runner.Run(context.Background(), cfg, tg)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, stderr.String())
		}
		if res.Rows != rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != rows {
			t.Fatalf("run %d: rows %d verify %+v\n%s", i+1, res.Rows, res.Verify, stderr.String())
		}
		if i == 1 && res.Verify.Note == "" {
			t.Errorf("second run: no note on the overwritten rows: %+v", res.Verify)
		}
	}
}

// TestRunnerBackPressure uses the stand-in: a real server cannot be made to
// answer memory pressure, write timeouts or an empty 500 on demand.
func TestRunnerBackPressure(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	path, rows := ilpFile(t, 10000)
	tg := standInTarget(t, s, func(c *Config) { c.Gzip = true })
	s.MemoryExhausted(3)
	s.Timeouts(2)
	s.EmptyErrors(2)
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runnerConfig(path, "bench", &stderr), tg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Rows != rows || res.Retries != 7 || res.Verify == nil || !res.Verify.OK || s.Rows("bench", "cpu") != rows {
		t.Fatalf("rows %d retries %d verify %+v server %d\n%s", res.Rows, res.Retries, res.Verify, s.Rows("bench", "cpu"), stderr.String())
	}
}

func TestRunnerRefusal(t *testing.T) {
	tg := realTarget(t, nil)
	path, _ := ilpFile(t, 3000)
	data, _ := os.ReadFile(path)
	// Line 1500 is bad: its batch is refused whole; the run fails.
	lines := strings.SplitAfter(string(data), "\n")
	lines[1499] = "cpu,hostname=x usage_user=oops 1\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	var stderr bytes.Buffer
	cfg := runnerConfig(path, tg.cfg.DBName, &stderr)
	cfg.Workers = 1
	res, err := runner.Run(context.Background(), cfg, tg)
	if err == nil || !strings.Contains(err.Error(), "040004") {
		t.Fatalf("err = %v, want the server's 040004 refusal", err)
	}
	if got := count(t, tg, "cpu"); res == nil || res.Rows != got || got != 1400 {
		t.Fatalf("results count %v rows, server holds %d (want 1400): a refused batch must not be counted", res, got)
	}
}
