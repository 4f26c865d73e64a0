package timescale

import (
	"net/url"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real PostgreSQL, with its loader kills (resume: batches in doubt are
// settled by their transaction ids, never written twice; every load into a
// database of its own); its faults are TestFaults', which run them into
// hypertables and plain tables.
func TestTargetSuite(t *testing.T) {
	requireServer(t)
	loadtest.TargetSuite{Loader: "load_timescale", Upstream: pgURL(), New: faultTarget(hypertableMode()), Rows: faultRows, Values: "TimescaleDB",
		Resume: &loadtest.ResumeSuite{
			Args: func(t *testing.T, proxy, _, _ string) []string {
				u, err := url.Parse(pgURL())
				if err != nil {
					t.Fatal(err)
				}
				u.Host = proxy
				return []string{"--postgres", u.String()}
			},
			Rows: tableRows,
		},
	}.Run(t, "suite")
}
