package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real CnosDB; its faults and resumes are TestFaults' and
// TestResumeAfterLoaderKill's.
func TestTargetSuite(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	loadtest.TargetSuite{Loader: "load_cnosdb", Upstream: base, New: faultTarget(db), Rows: faultRows(base, db)}.Run(t, "suite")
}
