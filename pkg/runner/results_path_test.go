package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultsPathCheckedFirst: a results file that cannot be written (its
// directory is missing) fails the run before anything is read or sent, not
// after the whole load.
func TestResultsPathCheckedFirst(t *testing.T) {
	path, _ := ilpInput(t, 100)
	f := newFake()
	cfg := baseConfig(path)
	cfg.ResultsFile = filepath.Join(t.TempDir(), "missing", "r.json")
	res, err := Run(context.Background(), cfg, f)
	if err == nil || !strings.Contains(err.Error(), "cannot be written (checked before loading)") || !strings.Contains(err.Error(), cfg.ResultsFile) {
		t.Fatalf("err %v", err)
	}
	if res.Rows != 0 || res.RowsRead != 0 || f.prepared != nil {
		t.Fatalf("rows %d read %d prepared %v: the run went on", res.Rows, res.RowsRead, f.prepared)
	}
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	if _, err := Run(context.Background(), cfg, newFake()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.ResultsFile); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg.ResultsFile), ".results-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
