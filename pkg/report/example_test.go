package report_test

import (
	"os"
	"path/filepath"

	"github.com/tsload/tsload/pkg/report"
)

// Three databases loaded the same file; one server was down. The failed run
// shows as "failed", never as a rate, and its error is listed below.
func ExampleRunTable() {
	files, _ := filepath.Glob("testdata/compare/*.json")
	err := report.RunTable(report.TableConfig{Files: files, Group: []string{"target"}, Out: os.Stdout})
	if err != nil {
		panic(err)
	}
	// Output:
	// | target | runs | rows/s median | rows/s min–max | metrics/s median | metrics/s min–max | p99 batch ms | retries / errors | rows | verified rows |
	// | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
	// | cnosdb | 1 (0 of 1 ok) | failed | failed | failed | failed | failed | failed | failed | failed |
	// | influx | 1 | 300,000 | 300,000 | 3,000,000 | 3,000,000 | 50.0 | 0 / 0 | 1,000,000 | 1,000,000 |
	// | questdb | 1 | 900,000 | 900,000 | 9,000,000 | 9,000,000 | 16.7 | 0 / 0 | 1,000,000 | 1,000,000 |
	// | timescale | 1 | 200,000 | 200,000 | 2,000,000 | 2,000,000 | 75.0 | 0 / 0 | 1,000,000 | 1,000,000 |
	//
	// rows/s and metrics/s: median and min–max across runs; p99 batch ms: median of the runs' p99 write latency; retries / errors: batches re-sent after a retryable error and batches or rows that failed, min–max across runs; verified rows: what the database counted afterwards.
	//
	// Runs that did not finish ok:
	//
	// - testdata/compare/cnosdb.json: connect: dial tcp 127.0.0.1:8902: connect: connection refused
}
