package victoriametrics

import (
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
)

// suite is the conformance suite's view of the real VictoriaMetrics: a db
// label of the test's own, counted from the server's export.
func suite(t *testing.T) loadtest.TargetSuite {
	base, db := vmtest.RealDB(t)
	return loadtest.TargetSuite{Loader: "load_victoriametrics", Upstream: base, New: suiteTarget(db), Rows: suiteRows(base, db), Values: "VictoriaMetrics"}
}

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real VictoriaMetrics, with its fault scenarios (faults) and loader kills
// (resume). A re-sent batch overwrites its own samples
// (-dedup.minScrapeInterval=1ms: a series keeps one sample per
// millisecond), so every retryable fault and every resume ends with the
// exact count; a line the server cannot parse (an integer out of range:
// 400) is refused for good. Counts are read from the server's export of
// the metric <table>_v directly, not through the target. The suite's
// server kill, which wants every acknowledged row kept, is
// TestKilledServer's: this server loses acknowledged rows to a SIGKILL.
func TestTargetSuite(t *testing.T) {
	s := suite(t)
	s.Faults = &loadtest.FaultSuite{
		Refuse:    func(line string) string { return strings.Replace(line, ",n=", ",n=99999999999999999999", 1) },
		RefuseErr: []string{"no exact float64"},
	}
	s.Resume = &loadtest.ResumeSuite{Args: func(_ *testing.T, proxy, _, _ string) []string {
		return []string{"--urls", "http://" + proxy}
	}}
	s.Run(t, "suite")
}
