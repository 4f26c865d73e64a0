package influx

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/query"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestQueryText compares the InfluxQL and Flux of querytest's queries
// (Queries and More, over its Sample rows) with the golden files
// testdata/queries.influxql and testdata/queries.flux (-update rewrites
// them); a query a dialect refuses is written as its error, which must
// wrap errors.ErrUnsupported (querytest.Text).
func TestQueryText(t *testing.T) {
	querytest.Text(t, filepath.Join("testdata", "queries.influxql"), *update,
		func(q *query.Query) (string, error) { return influxQL(q, quoteIdent(q.Table)) })
	querytest.Text(t, filepath.Join("testdata", "queries.flux"), *update,
		func(q *query.Query) (string, error) { return flux(q, "bucket") })
}
