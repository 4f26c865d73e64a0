package cnosdb

import (
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/querytest"
)

// TestQueries checks the querier's answers against query.Eval on the real
// server (internal/querytest).
func TestQueries(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	querytest.Suite{Loader: "load_cnosdb", Upstream: base, New: faultTarget(db)}.Run(t, "q")
}

// TestOddNames: a table prefix and name, tag names and values and a field
// name that need quoting are queried right.
func TestOddNames(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	tg, prep := faultTarget(db)(t, strings.TrimPrefix(base, "http://"), 30*time.Second)
	querytest.CheckOdd(t, tg, "load_cnosdb", prep)
}
