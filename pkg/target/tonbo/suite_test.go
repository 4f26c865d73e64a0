//go:build tonbo && cgo

package tonbo

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on
// tonbo through the bridge, every commit mode with the WAL on and one with
// it off. tonbo is embedded: no server, so no fault proxy (FaultSuite) and
// no resume (InDoubt says why).
func TestTargetSuite(t *testing.T) {
	for _, c := range []struct {
		commit Commit
		wal    bool
	}{{CommitBatch, true}, {CommitRow, true}, {CommitWriteBatch, true}, {CommitBatch, false}} {
		// A 1 MB string reopens from the files without the WAL, not
		// through its replay: the value table has a column for each.
		name, values := string(c.commit), "tonbo"
		if !c.wal {
			name += "/wal off"
			values = "tonbo, WAL off"
		}
		t.Run(name, func(t *testing.T) {
			newTarget := func(t *testing.T, addr string, _ time.Duration) (load.Target, load.PrepareOptions) {
				tg, err := New(Config{Path: filepath.Join(t.TempDir(), "db"), Commit: c.commit, WAL: c.wal})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tg.Close() })
				return tg, load.PrepareOptions{DBName: "suite", CreateDB: true, DropDB: true}
			}
			loadtest.TargetSuite{Loader: "load_tonbo", New: newTarget, Rows: tableRows, Embedded: true, Values: values}.Run(t, "suite")
		})
	}
}

// tableRows closes the target (its tables go to their files) and reads
// table from its directory with a handle of its own. Keys are tonbo's
// primary keys, the series and the time: distinct by construction, so the
// distinct (time, host) keys are the rows.
func tableRows(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	t.Helper()
	target := tg.(*Target)
	if err := target.Close(); err != nil {
		t.Fatalf("closing the target: %v", err)
	}
	s := scanDir(t, filepath.Join(target.cfg.Path, table))
	return s.Rows, s.Rows
}

// scanDir opens the table in dir (its schema.json) and scans it.
func scanDir(t *testing.T, dir string) *scanned {
	t.Helper()
	sch, err := readSchema(dir)
	if err != nil || sch == nil {
		t.Fatalf("table %s: %v (schema %v)", dir, err, sch)
	}
	tb, err := newTable(dir, sch)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.open(true); err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	s, err := tb.scan()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
