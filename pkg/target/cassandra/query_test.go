package cassandra_test

import (
	"testing"

	"github.com/tsload/tsload/internal/cassandratest"
	"github.com/tsload/tsload/internal/querytest"
)

// cqlUnsupported are TSBS's types CQL cannot state (query.go): every type but the rows of a
// window above a threshold (high-cpu-1, high-cpu-all).
var cqlUnsupported = append([]string{"single-groupby-1-1-1", "single-groupby-1-1-12", "single-groupby-1-8-1",
	"single-groupby-5-1-1", "single-groupby-5-1-12", "single-groupby-5-8-1", "cpu-max-all-1", "cpu-max-all-8",
	"cpu-max-all-32-24", "double-groupby-1", "double-groupby-5", "double-groupby-all", "groupby-orderby-limit", "lastpoint",
	"last-loc", "single-last-loc", "avg-vs-projected-fuel-consumption"}, querytest.Staged...)

// TestTSBSQueries runs a query set of TSBS's catalogue against the real Cassandra with every
// answer checked (internal/querytest.RunTSBS).
func TestTSBSQueries(t *testing.T) {
	addr, ks := cassandratest.Keyspace(t)
	querytest.Suite{Loader: "load_cassandra", Upstream: addr, New: newTarget(ks), Unsupported: cqlUnsupported}.RunTSBS(t, "b")
}
