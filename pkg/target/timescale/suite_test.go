package timescale

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real PostgreSQL; its faults and resumes are TestFaults' and
// TestResumeAfterLoaderKill's.
func TestTargetSuite(t *testing.T) {
	requireServer(t)
	loadtest.TargetSuite{Loader: "load_timescale", Upstream: pgURL(), New: faultTarget(hypertableMode()), Rows: faultRows}.Run(t, "suite")
}
