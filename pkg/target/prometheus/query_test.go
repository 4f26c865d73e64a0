package prometheus

import (
	"testing"

	"github.com/tsload/tsload/internal/promtest"
	"github.com/tsload/tsload/internal/querytest"
)

// promUnsupported are querytest's queries PromQL cannot state (query.go):
// Last, and a threshold with an aggregate.
var promUnsupported = []string{
	"lastpoint", "last-per-half-hour", "last-filter", "last2-per-bucket", "last-no-group",
	"max-filter-by-host-10m", "min-filter-same-field", "avg-filter-below", "count-filter-same-field",
	"max-filter-same-field", "count-below-same-field", "count-filter-by-region",
	"last-loc", "last2-per-bucket-iot", "last7-per-bucket-iot", "last7-iot", "count-filter-iot", "last-filter-iot",
}

// TestQuery loads querytest's cpu-only and iot files into a Prometheus of
// its own and checks every answer against query.Eval's.
func TestQuery(t *testing.T) {
	in := promtest.StartInstance(t, "query")
	querytest.Suite{Loader: "load_prometheus", Upstream: in.URL, New: suiteTarget("q"), Unsupported: promUnsupported}.Run(t, "q")
}

// promTSBSUnsupported are TSBS's types PromQL cannot state here (query.go): lastpoint and the
// iot types that read a truck's newest row (Last), avg-vs-projected-fuel-consumption (a
// threshold with an aggregate), and every type with a having, change or rollup stage.
var promTSBSUnsupported = append([]string{"lastpoint", "last-loc", "single-last-loc", "avg-vs-projected-fuel-consumption"},
	querytest.Staged...)

// TestTSBSQueries runs a query set of TSBS's catalogue against a Prometheus of its own with
// every answer checked (internal/querytest.RunTSBS).
func TestTSBSQueries(t *testing.T) {
	in := promtest.StartInstance(t, "tsbs")
	querytest.Suite{Loader: "load_prometheus", Upstream: in.URL, New: suiteTarget("b"), Unsupported: promTSBSUnsupported}.RunTSBS(t, "b")
}
