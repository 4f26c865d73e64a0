package cnosdb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// TestIntegrationRealCnosDB runs only when CNOSDB_URL names a real CnosDB
// 2.x (e.g. http://127.0.0.1:8902; CNOSDB_PASSWORD for root's password). It
// checks a runner load verified by exact_count (or count(*) on old
// servers), de-duplication on re-send, and the fatal refusals (bad line,
// unknown database). Back-pressure (Memory Exhausted Retry Later) cannot be
// provoked on demand and is tested against internal/cnosdbtest only.
func TestIntegrationRealCnosDB(t *testing.T) {
	url := os.Getenv("CNOSDB_URL")
	if url == "" {
		t.Skip("CNOSDB_URL not set: no real CnosDB to test against")
	}
	db := fmt.Sprintf("tsload_test_%d", time.Now().UnixNano()%1e9)
	var warn bytes.Buffer
	tg, err := New(Config{URLs: []string{url}, Tenant: "cnosdb", User: "root", Password: os.Getenv("CNOSDB_PASSWORD"),
		Precision: "ns", DBName: db, Gzip: true, GzipLevel: 1, TTL: "INF", Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	defer tg.SQL(ctx, "", "DROP DATABASE IF EXISTS "+ident(db))

	path, rows := ilpFile(t, 20000)
	var stderr bytes.Buffer
	cfg := runnerConfig(path, &stderr)
	cfg.Prepare.DBName = db
	res, err := runner.Run(ctx, cfg, tg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Rows != rows || !res.Verify.OK {
		t.Fatalf("rows %d verify %+v\n%s", res.Rows, res.Verify, stderr.String())
	}
	t.Logf("verified %d rows; warnings: %q", rows, warn.String())

	// Re-sending a batch merges on (series, time): the count stays.
	w, _ := tg.NewWriter(ctx, 0)
	b := batch("cpu,hostname=host_0 usage_user=1.5,usage_idle=1i 1600000000000000000\n", 1)
	b.Tables = []load.TableRows{{Name: "cpu", Rows: 1}}
	if _, err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	got, err := tg.Count(ctx, []string{"cpu"})
	if err != nil || got["cpu"] != rows {
		t.Fatalf("after a duplicate: %v %v, want %d", got, err, rows)
	}

	// A bad line refuses the whole request.
	_, err = w.Write(ctx, batch("cpu,hostname=zz usage_user=1 1600000000000000001\ncpu usage_user=oops x\n", 1))
	if err == nil || load.IsRetryable(err) {
		t.Fatalf("bad line: err = %v, want fatal", err)
	}
	t.Logf("bad line: %v", err)
	// Unknown database.
	other, _ := New(Config{URLs: []string{url}, Tenant: "cnosdb", User: "root", Password: os.Getenv("CNOSDB_PASSWORD"), Precision: "ns", DBName: db + "_missing"})
	ow, _ := other.NewWriter(ctx, 0)
	_, err = ow.Write(ctx, batch("m v=1 1\n", 1))
	if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "422") {
		t.Fatalf("unknown database: err = %v, want fatal 422", err)
	}
	t.Logf("unknown database: %v", err)
}
