// Package gentest writes small generated data sets for the loaders' tests.
// It is apart from internal/loadtest because pkg/gen's own tests import
// that package, and this one imports pkg/gen.
package gentest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
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
