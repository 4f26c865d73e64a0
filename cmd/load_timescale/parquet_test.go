package main

import (
	"path/filepath"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into COPY tuples on the workers) and verifies the counts; a
// BOOLEAN column fails before the database is touched.
func TestParquet(t *testing.T) {
	base, db := freshDB(t, "tsload_parquet")
	dir := t.TempDir()
	for _, c := range gentest.ParquetCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			results := filepath.Join(dir, c.Name+".json")
			r := loadtest.RunCLI(t, spec(), []string{"load_timescale", "--postgres", base, "--db-name", db, "--file", c.Path,
				"--workers", "2", "--batch-size", "300", "--results-file", results}, results, "")
			res := loadtest.ReadResults(t, results)
			if res.Format != "parquet" || res.Rows != c.Rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[c.Table] != c.Rows {
				t.Fatalf("format %s rows %d/%d verify %+v\n%s", res.Format, res.Rows, c.Rows, res.Verify, r.Stderr)
			}
		})
	}
	results := filepath.Join(dir, "bad.json")
	loadtest.RunCLI(t, spec(), []string{"load_timescale", "--postgres", base, "--db-name", db + "_never", "--file",
		filepath.Join("..", "..", "pkg", "format", "parquet", "testdata", "unsupported.parquet"), "--results-file", results},
		results, `column "ok" is BOOLEAN, which tsload does not load`)
}
