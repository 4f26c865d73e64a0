package questdb

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real QuestDB, ILP over HTTP into DEDUP tables; its faults and resumes
// are TestFaults' and TestResumeAfterLoaderKill's.
func TestTargetSuite(t *testing.T) {
	s := server(t)
	loadtest.TargetSuite{Loader: "load_questdb", Upstream: s.http, New: proxied(s.pg), Rows: rowsThenDrop}.Run(t, uniqueName(t, "suite"))
}
