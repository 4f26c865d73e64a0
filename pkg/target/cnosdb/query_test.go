package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/querytest"
)

// TestQueries checks the querier's answers against query.Eval on the real
// server (internal/querytest).
func TestQueries(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	querytest.Suite{Loader: "load_cnosdb", Upstream: base, New: faultTarget(db)}.Run(t, "q")
}
