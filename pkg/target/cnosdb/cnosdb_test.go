package cnosdb

import (
	"bytes"
	"context"
	"fmt"
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
)

func batch(data string, firstLine int64) *load.Batch {
	rows := strings.Count(data, "\n")
	return &load.Batch{Format: format.ILP, Data: []byte(data), Rows: rows, Source: "t.ilp",
		FirstLine: firstLine, FirstRecord: firstLine, Tables: []load.TableRows{{Name: "m", Rows: int64(rows)}}}
}

func newTarget(t *testing.T, s *cnosdbtest.Server, mod func(*Config)) *Target {
	t.Helper()
	cfg := Config{URLs: []string{s.URL}, Tenant: "cnosdb", User: "root", Precision: "ns", DBName: "bench", GzipLevel: 1}
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

func TestWriteAnswers(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	tg := newTarget(t, s, func(c *Config) { c.Gzip = true })
	ctx := context.Background()
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	good := "m,h=a v=1 1\nm,h=b v=2 2\n"
	tests := []struct {
		name      string
		knob      func()
		data      string
		rows      int
		retryable bool
		errText   string
	}{
		{"ok", nil, good, 2, false, ""},
		{"memory pressure", func() { s.MemoryExhausted(1) }, good, 0, true, "422 [050001] Memory Exhausted Retry Later"},
		{"timeout", func() { s.Timeouts(1) }, good, 0, true, "write vnode timeout"},
		{"empty 500", func() { s.EmptyErrors(1) }, good, 0, true, "500 with an empty body"},
		{"bad line", nil, "m,h=a v=1 1\nm v=oops x 3\n", 0, false, "422 [040004] Error parsing line protocol"},
		{"too large", func() { s.SetBodyLimit(10) }, good, 0, false, "lower --batch-size (this batch has 2 rows"},
		{"wrong password", func() { s.SetBodyLimit(cnosdbtest.DefaultBodyLimit); s.SetUsers(map[string]string{"root": "x"}) }, good, 0, false, "check --user and --password"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.knob != nil {
				tc.knob()
			}
			ack, err := w.Write(ctx, batch(tc.data, 10))
			if tc.errText == "" {
				if err != nil || ack.Rows != tc.rows {
					t.Fatalf("ack %+v err %v", ack, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errText) || load.IsRetryable(err) != tc.retryable {
				t.Fatalf("err = %v (retryable %v), want %q retryable %v", err, load.IsRetryable(err), tc.errText, tc.retryable)
			}
			// The runner prefixes the batch position; the writer must not
			// repeat it.
			if !strings.HasPrefix(err.Error(), "cnosdb: ") || strings.Contains(err.Error(), "records 10-") {
				t.Fatalf("error repeats the batch position or lacks the target: %v", err)
			}
		})
	}
	s.SetUsers(nil)
	if n := s.Rows("bench", "m"); n != 2 {
		t.Fatalf("server holds %d rows, want 2 (refused batches write nothing)", n)
	}
}

func TestWriteRequest(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
	}))
	defer srv.Close()
	tg, err := New(Config{URLs: []string{srv.URL}, Tenant: "t1", User: "root", Password: "secret", Precision: "ms", DBName: "d b"})
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
	tg, _ = New(Config{URLs: []string{srv.URL}, Tenant: "cnosdb", User: "root", Precision: "ns", DBName: "d"})
	w, _ = tg.NewWriter(context.Background(), 0)
	w.Write(context.Background(), batch("m v=1 1\n", 1))
	if _, _, ok := got.BasicAuth(); !ok {
		t.Fatal("no Authorization header without a password")
	}
}

func TestNetworkErrorRetryable(t *testing.T) {
	s := cnosdbtest.New()
	s.Close()
	tg := newTarget(t, s, nil)
	w, _ := tg.NewWriter(context.Background(), 0)
	if _, err := w.Write(context.Background(), batch("m v=1 1\n", 1)); err == nil || !load.IsRetryable(err) {
		t.Fatalf("err = %v, want retryable", err)
	}
}

func TestPrepare(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	ctx := context.Background()
	tg := newTarget(t, s, func(c *Config) { c.TTL, c.Shards, c.VnodeDuration, c.Replica = "3650d", 4, "1d", 1 })
	if got, want := tg.CreateStatement("Bench"), `CREATE DATABASE IF NOT EXISTS "Bench" WITH TTL '3650d' SHARD 4 VNODE_DURATION '1d' REPLICA 1`; got != want {
		t.Fatalf("statement %q, want %q", got, want)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "bench"}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("no create: err = %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	if opts, ok := s.Options("bench"); !ok || opts != "TTL '3650d' SHARD 4 VNODE_DURATION '1d' REPLICA 1" {
		t.Fatalf("options %q %v", opts, ok)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true, AbortOnExist: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("abort on exist: err = %v", err)
	}
	w, _ := tg.NewWriter(ctx, 0)
	w.Write(ctx, batch("m v=1 1\n", 1))
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	if n := s.Rows("bench", "m"); n != -1 {
		t.Fatalf("table survived --drop-db (%d rows)", n)
	}
}

func TestCountFallback(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	ctx := context.Background()
	var warn bytes.Buffer
	tg := newTarget(t, s, func(c *Config) { c.Warn = &warn })
	tg.Prepare(ctx, load.PrepareOptions{DBName: "bench", CreateDB: true})
	w, _ := tg.NewWriter(ctx, 0)
	w.Write(ctx, batch("m,h=a v=1 1\nm,h=a v=2 1\nm,h=b v=1 1\n", 1))
	got, err := tg.Count(ctx, []string{"m", "absent"})
	if err != nil || got["m"] != 2 || got["absent"] != 0 || warn.Len() != 0 {
		t.Fatalf("exact: %v %v warn %q", got, err, warn.String())
	}
	s.SetOld(true)
	got, err = tg.Count(ctx, []string{"m"})
	if err != nil || got["m"] != 3 || !strings.Contains(warn.String(), "before 2.4.3") {
		t.Fatalf("old server: %v %v warn %q", got, err, warn.String())
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{URLs: []string{"http://x"}, Tenant: "cnosdb", Precision: "ns"}
	tests := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Precision = "s" }, `invalid --precision "s"`},
		{func(c *Config) { c.Precision = "n" }, `invalid --precision "n"`},
		{func(c *Config) { c.Tenant = "" }, "tenant"},
		{func(c *Config) { c.TTL = "10 days'; DROP" }, "--db-ttl"},
		{func(c *Config) { c.VnodeDuration = "x" }, "--db-vnode-duration"},
		{func(c *Config) { c.Shards = -1 }, "--db-shards"},
		{func(c *Config) { c.Gzip, c.GzipLevel = true, 11 }, "--gzip-level"},
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

// ilpFile writes rows of line protocol (with 10 duplicated rows) to a file.
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

func runnerConfig(path string, stderr *bytes.Buffer) runner.Config {
	return runner.Config{
		Inputs: []string{path}, BatchSize: 700, Workers: 3, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 20 * time.Second, Stderr: stderr,
		Prepare: load.PrepareOptions{DBName: "bench", CreateDB: true, DropDB: true},
		Loader:  "load_cnosdb", Target: "cnosdb",
	}
}

func TestRunnerBackPressure(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	path, rows := ilpFile(t, 10000)
	tg := newTarget(t, s, func(c *Config) { c.Gzip = true })
	s.MemoryExhausted(3)
	s.Timeouts(2)
	s.EmptyErrors(2)
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runnerConfig(path, &stderr), tg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Rows != rows || res.Retries != 7 || res.Verify == nil || !res.Verify.OK || s.Rows("bench", "cpu") != rows {
		t.Fatalf("rows %d retries %d verify %+v server %d\n%s", res.Rows, res.Retries, res.Verify, s.Rows("bench", "cpu"), stderr.String())
	}
}

func TestRunnerRefusal(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	path, _ := ilpFile(t, 3000)
	data, _ := os.ReadFile(path)
	// Line 1500 is bad: its batch is refused whole; the run fails.
	lines := strings.SplitAfter(string(data), "\n")
	lines[1499] = "cpu,hostname=x usage_user=oops 1\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	tg := newTarget(t, s, nil)
	var stderr bytes.Buffer
	cfg := runnerConfig(path, &stderr)
	cfg.Workers = 1
	res, err := runner.Run(context.Background(), cfg, tg)
	if err == nil || !strings.Contains(err.Error(), "040004") {
		t.Fatalf("err = %v, want the server's 040004 refusal", err)
	}
	if got := s.Rows("bench", "cpu"); res == nil || res.Rows != got {
		t.Fatalf("results count %v rows, server holds %d: a refused batch must not be counted", res, got)
	}
}
