package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/querytest"
)

// TestTSBSQueries runs a query set of TSBS's catalogue against the real
// server with every answer checked (internal/querytest.RunTSBS).
func TestTSBSQueries(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	querytest.Suite{Loader: "load_cnosdb", Upstream: base, New: faultTarget(db)}.RunTSBS(t, "b")
}
