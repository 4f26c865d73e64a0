package gentest

import (
	"context"
	"io"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/usecase"
)

// ParquetCase is a Parquet file a loader's test loads: its path, its
// table (the name a loader gives it from the file name) and rows.
type ParquetCase struct {
	Name, Path, Table string
	Rows              int64
}

// ParquetCases are the two Parquet files every loader loads: cpu-only
// from generate_data (5 hosts, 2 hours, row groups of 1,000 rows: 3,600
// rows), and pkg/format/parquet/testdata/sample.parquet, written by
// pyarrow (make_sample.py: table "sample", 1,000 rows in 4 row groups,
// nanosecond times, NULL tags and fields, float4 and int4 fields).
func ParquetCases(t testing.TB, dir string) []ParquetCase {
	t.Helper()
	path := filepath.Join(dir, "cpu.parquet")
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := gen.Generate(context.Background(), gen.Config{UseCase: usecase.CPUOnly, Format: format.Parquet, Seed: 42, Scale: 5,
		Start: start, End: start.Add(2 * time.Hour), File: path, RowGroupRows: 1000, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	_, here, _, _ := runtime.Caller(0)
	testdata := filepath.Join(filepath.Dir(here), "..", "..", "pkg", "format", "parquet", "testdata")
	return []ParquetCase{
		{Name: "generated", Path: path, Table: "cpu", Rows: st.Rows},
		{Name: "pyarrow", Path: filepath.Join(testdata, "sample.parquet"), Table: "sample", Rows: 1000},
		// Times as Spark writes them (INT96: Julian day, nanoseconds of the day).
		{Name: "int96", Path: filepath.Join(testdata, "int96.parquet"), Table: "int96", Rows: 10},
	}
}
