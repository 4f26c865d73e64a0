package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/loadcli"
)

// questdbServer returns the HTTP and PG-wire URLs of the QuestDB of
// scripts/start_questdb.sh (skipping the test when it is unreachable and CI
// is unset).
func questdbServer(t *testing.T) (httpURL, pg string) {
	t.Helper()
	httpURL = loadtest.HTTPServer(t, "QuestDB", "TSLOAD_QUESTDB_HTTP", "http://127.0.0.1:9000", "scripts/start_questdb.sh")
	pg = os.Getenv("TSLOAD_QUESTDB_PG")
	if pg == "" {
		pg = "postgres://admin:quest@127.0.0.1:8812/qdb"
	}
	return httpURL, pg
}

// questdbTables is questdbServer with a table name (or name prefix) of the
// test's own, prefix followed by a number; the tables it starts are dropped
// when the test ends.
func questdbTables(t *testing.T, prefix string) (httpURL, pg, name string) {
	t.Helper()
	httpURL, pg = questdbServer(t)
	name = fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1e9)
	loadtest.DropQuestDBTables(t, httpURL, name)
	return httpURL, pg, name
}

// TestCLI runs load_questdb's command line with a --conf string and a
// serialization pass: auto_flush_rows becomes the batch size, both rates
// reach the results file, and the password never does.
func TestCLI(t *testing.T) {
	httpURL, pg, table := questdbTables(t, "cli_")
	var b strings.Builder
	const rows = 2000
	for i := range rows {
		fmt.Fprintf(&b, "%s,host=h%d usage=%d.5 %d\n", table, i%20, i, 1451606400000000000+int64(i/20)*1e9)
	}
	addr := strings.TrimPrefix(httpURL, "http://")
	r := loadtest.RunOnInput(t, spec(), "in.ilp", b.String(), "", "--serialization-pass", "--pg", pg,
		"--conf", "http::addr="+addr+";username=admin;password=s3cret;;x;auto_flush_rows=700;request_timeout=5000;")
	r.NoSecret(t, "a secret", "s3cret", ":quest@")
	res := r.Decoded(t)
	if res.BatchSize != 700 || res.Rows != rows || res.Verify == nil || !res.Verify.OK || res.Batches != (rows+699)/700 {
		t.Fatalf("batch size %d rows %d/%d batches %d verify %+v", res.BatchSize, res.Rows, rows, res.Batches, res.Verify)
	}
	if z := res.Serialization; z == nil || z.SerializedRowsPerSec <= 0 || z.SentRowsPerSec <= 0 || z.SentMiBPerSec <= 0 {
		t.Errorf("serialization figures %+v", z)
	}
	if !strings.Contains(r.Stderr, "serialized:") || !strings.Contains(r.Stderr, "sent:") {
		t.Errorf("no serialization figures on stderr:\n%s", r.Stderr)
	}
	if !strings.Contains(r.Stderr, "is not a tsload use-case table") {
		t.Errorf("no note about the auto-created table:\n%s", r.Stderr)
	}
	if conf, _ := res.Flags["conf"].(string); !strings.Contains(conf, "password=REDACTED;") {
		t.Errorf("conf flag recorded as %q", res.Flags["conf"])
	}
}

// TestGzipBodies loads gzip-compressed ILP/HTTP request bodies (QuestDB
// 9.1+) from a zstd-compressed input file: every row is verified.
func TestGzipBodies(t *testing.T) {
	httpURL, pg, table := questdbTables(t, "gzbody_")
	var b strings.Builder
	const rows = 3000
	for i := range rows {
		fmt.Fprintf(&b, "%s,host=h%d usage=%d.5 %d\n", table, i%20, i, 1451606400000000000+int64(i/20)*1e9)
	}
	enc, _ := zstd.NewWriter(nil)
	file, resultsPath := loadtest.InputFile(t, "in.ilp.zst", string(enc.EncodeAll([]byte(b.String()), nil)))
	enc.Close()
	r := loadtest.RunCLI(t, spec(), []string{"load_questdb", "--file", file, "--gzip", "--gzip-level", "3",
		"--http-url", httpURL, "--pg", pg, "--batch-size", "1000", "--results-file", resultsPath}, resultsPath, "")
	res := r.Decoded(t)
	if res.Rows != rows || res.Verify == nil || !res.Verify.OK || res.Flags["gzip"] != true {
		t.Fatalf("rows %d/%d verify %+v flags %v", res.Rows, rows, res.Verify, res.Flags)
	}
	err := loadcli.Run(context.Background(), spec(), []string{"load_questdb", "--file", file, "--gzip", "--transport", "tcp"}, nil, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "ILP/HTTP only") {
		t.Fatalf("--gzip with --transport tcp: %v", err)
	}
}
