package loadtest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
)

// RepeatedKeys writes a cpu-only ILP file (3 hosts, 2 hours: 2,160
// distinct (series, time) keys) whose rows are written twice with new
// values at a rate of 1 in 100 (generate_data --repeat 0.01
// --repeat-changes), and returns its path and row count.
func RepeatedKeys(t testing.TB) (path string, rows int64) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "repeat.ilp")
	cfg := gen.Config{UseCase: "cpu-only", Format: format.ILP, Seed: 5, Scale: 3, Workers: 1, Start: gen.DefaultStart,
		End: gen.DefaultStart.Add(2 * time.Hour), File: path, Stderr: io.Discard, Disorder: gen.Disorder{Repeat: 0.01, RepeatChanges: true}}
	st, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Rows
}

// RepeatedKeysVerified fails the test unless a load of RepeatedKeys' file
// (rows rows) with the default count verification passed, the database
// holding the 2,160 distinct keys, with the note that says so.
func RepeatedKeysVerified(t testing.TB, res *load.Results, err error, log string, rows int64) {
	t.Helper()
	want := fmt.Sprintf("cpu: %d rows acknowledged, 2160 distinct (series, time) keys, %d rows repeat one", rows, rows-2160)
	if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != 2160 || !strings.Contains(res.Verify.Note, want) {
		t.Fatalf("err %v verify %+v, want a pass saying %q\n%s", err, res.Verify, want, log)
	}
}
