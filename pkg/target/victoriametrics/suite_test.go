package victoriametrics

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real VictoriaMetrics; its faults and resumes are TestFaults' and
// TestResumeAfterLoaderKill's (the suite's server kill is
// TestKilledServer's: this server loses acknowledged rows to a SIGKILL).
func TestTargetSuite(t *testing.T) {
	base, db := vmtest.RealDB(t)
	loadtest.TargetSuite{Loader: "load_victoriametrics", Upstream: base, New: suiteTarget(db), Rows: suiteRows(base, db)}.Run(t, "suite")
}
