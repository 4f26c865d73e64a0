package influx

import (
	"testing"

	"github.com/tsload/tsload/internal/querytest"
)

// TestTSBSQueriesV1 runs a query set of TSBS's catalogue against the real
// InfluxDB 1.x in InfluxQL with every answer checked
// (internal/querytest.RunTSBS).
func TestTSBSQueriesV1(t *testing.T) {
	querytest.Suite{Loader: "load_influx", Upstream: influxURL(t), New: faultTarget(uniqueDB(t))}.RunTSBS(t, "b1")
}
