// Package parquettest is the loaders' shared Parquet test: each loader
// loads gentest's Parquet cases and checks its results file. It is a
// package of its own because loadtest must not import gentest (pkg/gen's
// tests import loadtest).
package parquettest

import (
	"path/filepath"
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
