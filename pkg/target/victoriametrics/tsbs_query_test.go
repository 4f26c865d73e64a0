package victoriametrics

import (
	"testing"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/internal/vmtest"
)

// TestTSBSQueries runs a query set of TSBS's catalogue against the real
// server with every answer checked (internal/querytest.RunTSBS). A
// threshold on another field than the aggregated one cannot be said in
// MetricsQL exactly (query.go): avg-vs-projected-fuel-consumption is
// declared unsupported, and so are the types with a having or rollup
// stage (querytest.Staged).
func TestTSBSQueries(t *testing.T) {
	base, db := vmtest.RealDB(t)
	querytest.Suite{Loader: "load_victoriametrics", Upstream: base, New: suiteTarget(db), Unsupported: append([]string{"avg-vs-projected-fuel-consumption"}, querytest.Staged...)}.RunTSBS(t, "b")
}
