package summary

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

func ExampleWrite() {
	res := &results.Results{
		Status: results.StatusOK, Rows: 1000000, Metrics: 10000000, Batches: 200, Seconds: 2.5,
		RowsPerSec: 400000, MetricsPerSec: 4000000, RowsRead: 1000000, Bytes: 123456789,
		Latency: results.LatencySummary{Mean: 12.5, P50: 11, P90: 20.25, P99: 31, Max: 45.5},
		Retries: 2,
		Verify:  &results.Verification{OK: true, Expected: map[string]int64{"cpu": 1000000}, Actual: map[string]int64{"cpu": 1000000}, Seconds: 0.12},
	}
	Write(os.Stdout, res, Options{DoLoad: true})
	// Output:
	// loaded 1,000,000 rows (10,000,000 metrics) in 200 batches in 2.500s: ok
	// mean rate: 400,000 rows/s, 4,000,000 metrics/s (1,000,000 rows read, 123.5 MB)
	// batch latency ms: mean 12.50 p50 11.00 p90 20.25 p99 31.00 max 45.50
	// retries 2, errors 0, rejected rows 0, skipped records 0
	// verify OK in 0.12s: cpu 1000000/1000000
}

func TestSerialization(t *testing.T) {
	var b bytes.Buffer
	Serialization(&b, &results.Serialization{SerializedRowsPerSec: 2000, SerializedMiBPerSec: 8, SentRowsPerSec: 250, SentMiBPerSec: 1})
	if !strings.Contains(b.String(), "serialized:         2000 rows/s       8.00 MiB/s") || !strings.Contains(b.String(), "sent:                250 rows/s       1.00 MiB/s") {
		t.Errorf("printed:\n%s", b.String())
	}
}
