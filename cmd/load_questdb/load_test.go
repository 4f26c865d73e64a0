package main

import (
	"path/filepath"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/results"
)

// loadInto runs load_questdb with args against the QuestDB at httpURL and
// pg (no error wanted), the results file in a temporary directory, and
// returns the run and its results.
func loadInto(t *testing.T, httpURL, pg string, args ...string) (loadtest.CLIRun, results.Results) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	r := loadtest.RunCLI(t, spec(), append([]string{"load_questdb", "--pg", pg, "--http-url", httpURL, "--results-file", path}, args...), path, "")
	return r, loadtest.ReadResults(t, path)
}
