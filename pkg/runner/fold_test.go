package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/load"
)

// foldingTarget keeps table names that differ only in case as one table,
// as QuestDB does.
type foldingTarget struct {
	*fakeTarget
	short int64 // rows the count leaves out of a table written to
}

func (foldingTarget) Hooks() load.Hooks { return load.Hooks{FoldName: strings.ToLower} }

func (f foldingTarget) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int64{}
	for _, t := range tables {
		for n, rows := range f.rows {
			if strings.EqualFold(n, t) {
				out[t] += rows
			}
		}
		if out[t] > 0 {
			out[t] -= f.short
		}
	}
	return out, nil
}

// TestFoldedTableNames: lines of CPU and cpu are one table in a database
// that folds case; verification counts it once with the rows of both
// spellings and says so, a row missing from it still fails, and a target
// that keeps the names apart verifies them apart.
func TestFoldedTableNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.ilp")
	os.WriteFile(path, []byte("CPU,host=a v=1 1451606400000000000\ncpu,host=b v=2 1451606401000000000\ncpu,host=c v=3 1451606402000000000\n"), 0o644)

	res, err := Run(context.Background(), baseConfig(path), foldingTarget{fakeTarget: newFake()})
	if err != nil || !res.Verify.OK || len(res.Verify.Actual) != 1 || res.Verify.Actual["CPU"] != 3 ||
		!strings.Contains(res.Verify.Note, "CPU = cpu") {
		t.Fatalf("folded: %v, verify %+v", err, res.Verify)
	}
	if _, err := Run(context.Background(), baseConfig(path), foldingTarget{fakeTarget: newFake(), short: 1}); err == nil ||
		!strings.Contains(err.Error(), "CPU: 0 rows before + 3 acknowledged = 3 expected, database has 2") {
		t.Fatalf("a lost row in a folded table: %v", err)
	}
	res, err = Run(context.Background(), baseConfig(path), newFake())
	if err != nil || !res.Verify.OK || res.Verify.Actual["CPU"] != 1 || res.Verify.Actual["cpu"] != 2 || res.Verify.Note != "" {
		t.Fatalf("apart: %v, verify %+v", err, res.Verify)
	}
}
