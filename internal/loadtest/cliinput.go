package loadtest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/results"
)

// InputFile writes content to a file name in a temporary directory of the
// test, failing the test when it cannot, and returns its path and the path
// of a results file (r.json, not written) in the same directory: the
// --file and --results-file of a command-line run (RunCLI). The directory
// is named after the test, and --file splits its value at commas: a test
// whose name holds one fails here, saying so.
func InputFile(t testing.TB, name, content string) (in, results string) {
	t.Helper()
	in = tempFile(t, name, content)
	if strings.Contains(in, ",") {
		t.Fatalf("input path %s holds a comma, which --file takes as a separator: name the test without one", in)
	}
	return in, filepath.Join(filepath.Dir(in), "r.json")
}

// RunOnInput runs the loader of spec on a file name holding content
// (InputFile) with args, its flags besides --file and --results-file: the
// run must end as wantErr says (as RunCLI's), and is returned with its
// results file read back.
func RunOnInput(t testing.TB, spec loadcli.Spec, name, content, wantErr string, args ...string) CLIRun {
	t.Helper()
	in, resultsPath := InputFile(t, name, content)
	return RunCLI(t, spec, append([]string{spec.Name, "--file", in, "--results-file", resultsPath}, args...), resultsPath, wantErr)
}

// DBPerRun returns the flags of a run into a database of its own on base
// (--urls base --db-name, a UniqueDB name of the run's test), which drop
// deletes when that test ends: the target of PacedRuns and the Args of
// owndatatest.CSVSuite for the loaders whose database is a name on a URL
// (CnosDB, VictoriaMetrics).
func DBPerRun(base string, drop func(t testing.TB, base, db string)) func(t *testing.T, table string) []string {
	return func(t *testing.T, _ string) []string {
		db := UniqueDB(t)
		drop(t, base, db)
		return []string{"--urls", base, "--db-name", db}
	}
}

// RefusedBatch checks that a batch the server refuses fails the run and
// is not counted: the loader of spec, with args (its connection and
// database flags), loads 100 lines in batches of 10 on one worker, line i
// (from 0) good(i) but line 58 (i 57) bad. The run must fail with an error
// naming the refused batch (records 51-60) and holding wantErr and each of
// alsoErr; its results must say failed with the 50 rows of the five
// batches before the refused one, and held (the rows the server holds)
// must be 50.
func RefusedBatch(t *testing.T, spec loadcli.Spec, args []string, good func(i int) string, bad string, held func(t testing.TB) int64, wantErr string, alsoErr ...string) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < 100; i++ {
		line := good(i)
		if i == 57 {
			line = bad
		}
		b.WriteString(line + "\n")
	}
	r := RunOnInput(t, spec, "in.ilp", b.String(), wantErr, append([]string{"--batch-size", "10", "--workers", "1"}, args...)...)
	for _, want := range append([]string{"records 51-60"}, alsoErr...) {
		if !strings.Contains(r.Err.Error(), want) {
			t.Fatalf("err = %v, want %q too\n%s", r.Err, want, r.Stderr)
		}
	}
	res := r.Decoded(t)
	if n := held(t); res.Status != results.StatusFailed || res.Rows != 50 || n != 50 {
		t.Fatalf("results %+v; the server holds %d rows, want 50\n%s", res, n, r.Stderr)
	}
}
