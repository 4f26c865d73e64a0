package timescale

import (
	"net/url"
	"testing"

	"github.com/tsload/tsload/internal/querytest"
)

// TestTSBSQueries runs a query set of TSBS's catalogue against the real
// server with every answer checked (internal/querytest.RunTSBS), on a
// hypertable when the server has TimescaleDB.
func TestTSBSQueries(t *testing.T) {
	requireServer(t)
	u, err := url.Parse(pgURL())
	if err != nil {
		t.Fatal(err)
	}
	querytest.Suite{Loader: "load_timescale", Upstream: u.Host, New: faultTarget(hypertableMode())}.RunTSBS(t, "b")
}
