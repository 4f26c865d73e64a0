package report

import (
	"time"

	"github.com/tsload/tsload/pkg/results"
)

var t0 = time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)

// fakeRun is an ok run loading rows at a steady rate in 1s periods.
func fakeRun(path string, batch, workers int, rate float64) Run {
	const rows = 10000
	secs := rows / rate
	r := &results.Results{
		Loader: "load_x", Target: "x", Status: results.StatusOK, Format: "ilp",
		Flags: map[string]any{"db-name": "bench"}, Inputs: []string{"data"},
		Start: t0, End: t0.Add(time.Duration(secs * float64(time.Second))), Seconds: secs,
		BatchSize: batch, Workers: workers,
		Rows: rows, Metrics: rows * 10, Batches: rows/int64(batch+1) + 1,
		RowsPerSec: rate, MetricsPerSec: rate * 10,
	}
	return Run{Path: path, Results: r}
}
