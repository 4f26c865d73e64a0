package owndatatest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/loadcli"
)

// TSBSLinesFile is the path of a file of TSBS's generator in its line
// protocol (testdata/README.md): 240 cpu rows.
func TSBSLinesFile(t testing.TB) string {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(self), "testdata", "tsbs-cpu-only.influx.gz")
}

// TSBSLines loads TSBSLinesFile with spec's loader and args (which load
// its table cpu as prefix+"cpu") and checks that it counts the file's
// 240 rows, as TSBS's own loader would.
func TSBSLines(t *testing.T, spec loadcli.Spec, prefix string, args ...string) {
	results := filepath.Join(t.TempDir(), "r.json")
	all := append([]string{spec.Name, "--file", TSBSLinesFile(t), "--results-file", results}, args...)
	r := loadtest.RunCLI(t, spec, all, results, "")
	res := loadtest.ReadResults(t, results)
	if v := res.Verify; v == nil || !v.OK || v.Actual[prefix+"cpu"] != 240 || len(v.Actual) != 1 {
		t.Fatalf("verify %+v, want %scpu 240\n%s", res.Verify, prefix, r.Stderr)
	}
}
