package split

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/usecase"
)

// generate runs generate_data's generator with cfg (its messages
// discarded unless cfg.Stderr is set) and fails the test on an error.
func generate(t testing.TB, cfg gen.Config) {
	t.Helper()
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if _, err := gen.Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}

// genData generates six hours of useCase in f (seed 7, scale hosts or
// locations from gen.DefaultStart, two workers; Parquet in row groups of
// rowGroup rows, 0 the default) into dir and returns its path, named for
// the use case's table (cpu, weather).
func genData(t testing.TB, dir, useCase string, f format.Format, scale int, rowGroup int64) string {
	t.Helper()
	name := "cpu"
	if useCase == usecase.Weather {
		name = "weather"
	}
	path := filepath.Join(dir, name+gen.Extension(f))
	generate(t, gen.Config{UseCase: useCase, Format: f, Seed: 7, Scale: scale,
		Start: gen.DefaultStart, End: gen.DefaultStart.Add(6 * time.Hour), File: path, Workers: 2, RowGroupRows: rowGroup})
	return path
}
