package gentest

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
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
