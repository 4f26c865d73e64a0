package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into line protocol on the workers) into tables of the test's
// own and verifies the counts and the content (series, time range, each
// field's count and sum).
func TestParquet(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "pq_")
	dir := t.TempDir()
	for _, c := range gentest.ParquetCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			results := filepath.Join(dir, c.Name+".json")
			r := loadtest.RunCLI(t, spec(), []string{"load_questdb", "--file", c.Path, "--pg", pg, "--table-prefix", prefix + "_",
				"--conf", "http::addr=" + httpURL[len("http://"):] + ";", "--workers", "2", "--batch-size", "300", "--verify", "content", "--results-file", results}, results, "")
			res := loadtest.ReadResults(t, results)
			table := prefix + "_" + c.Table
			if res.Format != "parquet" || res.Rows != c.Rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[table] != c.Rows {
				t.Fatalf("format %s rows %d/%d verify %+v\n%s", res.Format, res.Rows, c.Rows, res.Verify, r.Stderr)
			}
			if !strings.Contains(r.Stderr, "verify content OK: 1 tables") {
				t.Fatalf("content not verified:\n%s", r.Stderr)
			}
		})
	}
}
