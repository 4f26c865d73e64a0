// Package parquettest is the loaders' shared Parquet test: each loader
// loads gentest's Parquet cases and checks its results file. It is a
// package of its own because loadtest must not import gentest (pkg/gen's
// tests import loadtest).
package parquettest

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/loadcli"
)

// Suite loads gentest's Parquet cases (a file of generate_data and
// one of pyarrow with NULLs) with a loader and checks what its results
// file says: format parquet, every row read, and the verified count of the
// case's table.
type Suite struct {
	Spec loadcli.Spec
	// Args are the connection and database flags (the suite adds --file,
	// --workers 2, --batch-size 300 and --results-file).
	Args []string
	// Prefix is what the loader puts before the table name (--table-prefix).
	Prefix string
	// Content, when set, loads with --verify content and wants it to pass.
	Content bool
}

// Run loads each case in its own subtest.
func (s Suite) Run(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for _, c := range gentest.ParquetCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			results := filepath.Join(dir, c.Name+".json")
			args := append([]string{s.Spec.Name, "--file", c.Path, "--workers", "2", "--batch-size", "300", "--results-file", results}, s.Args...)
			if s.Content {
				args = append(args, "--verify", "content")
			}
			r := loadtest.RunCLI(t, s.Spec, args, results, "")
			res := loadtest.ReadResults(t, results)
			table := s.Prefix + c.Table
			if res.Format != "parquet" || res.Rows != c.Rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[table] != c.Rows {
				t.Fatalf("format %s rows %d/%d verify %+v\n%s", res.Format, res.Rows, c.Rows, res.Verify, r.Stderr)
			}
			if s.Content && !strings.Contains(r.Stderr, "verify content OK: 1 tables") {
				t.Fatalf("content not verified:\n%s", r.Stderr)
			}
		})
	}
}

// NullRows loads pyarrow's nullrows.parquet (pkg/format/parquet/testdata/
// make_nullrows.py: 10 rows, 2 whose only field is NULL) with a loader
// and its args (--verify content when content), and checks what its
// results file says (issue 43 item 13): a database of line protocol, where
// a line needs a field, loads the 8 others and counts the 2 as skipped
// records, and verification proves the 8; another (lines false) loads
// all 10, the 2 as rows of NULLs.
func NullRows(t *testing.T, spec loadcli.Spec, table string, lines, content bool, args ...string) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	file := filepath.Join(filepath.Dir(here), "..", "..", "pkg", "format", "parquet", "testdata", "nullrows.parquet")
	results := filepath.Join(t.TempDir(), "r.json")
	all := append([]string{spec.Name, "--file", file, "--results-file", results}, args...)
	if content {
		all = append(all, "--verify", "content")
	}
	r := loadtest.RunCLI(t, spec, all, results, "")
	res := loadtest.ReadResults(t, results)
	rows, skipped := int64(8), int64(2)
	if !lines {
		rows, skipped = 10, 0
	}
	if res.Rows != rows || res.SkippedRecords != skipped || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[table] != rows {
		t.Fatalf("rows %d, skipped %d, verify %+v: want %d rows, %d skipped\n%s", res.Rows, res.SkippedRecords, res.Verify, rows, skipped, r.Stderr)
	}
	if content && !strings.Contains(r.Stderr, "verify content OK: 1 tables") {
		t.Fatalf("content not verified:\n%s", r.Stderr)
	}
	if lines && !strings.Contains(r.Stderr, "record 3: row 3 (row group 0): no value to load") {
		t.Fatalf("the first row skipped is not said:\n%s", r.Stderr)
	}
}
