// Package gentest writes small generated data sets for the loaders' tests.
// It is apart from internal/loadtest because pkg/gen's own tests import
// that package, and this one imports pkg/gen.
package gentest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/usecase"
)

// GenFile writes a small data set of useCase (seed 42, from 2016-01-01 for
// span) in format f to dir/name and returns the path and its row count.
func GenFile(t testing.TB, dir, name, useCase string, f format.Format, scale int, span time.Duration) (string, int64) {
	t.Helper()
	var out bytes.Buffer
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: useCase, Format: f, Seed: 42, Scale: scale,
		Start: start, End: start.Add(span), Stdout: &out, Workers: 1,
		Stderr: &bytes.Buffer{},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, st.Rows
}

// CPUHour is an hour of cpu-only data in f from gen.DefaultStart: 3 hosts
// every 10 s, seed 1, 1,080 rows. It returns the data and its row count.
func CPUHour(t testing.TB, f format.Format) ([]byte, int64) {
	t.Helper()
	var data bytes.Buffer
	st, err := gen.Generate(context.Background(), gen.Config{UseCase: usecase.CPUOnly, Format: f, Seed: 1, Scale: 3, Workers: 1,
		Start: gen.DefaultStart, End: gen.DefaultStart.Add(time.Hour), Stdout: &data, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return data.Bytes(), st.Rows
}

// CPUHourEach runs run as a subtest for each format that carries a table's
// columns (pgcopy, CSV) with CPUHour's data in it: what a loader reads
// with no --table or schema lookup.
func CPUHourEach(t *testing.T, run func(t *testing.T, f format.Format, data []byte, rows int64)) {
	for _, f := range []format.Format{format.PGCopy, format.CSV} {
		t.Run(f.String(), func(t *testing.T) {
			data, rows := CPUHour(t, f)
			run(t, f, data, rows)
		})
	}
}
