package cnosdb

import (
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// suite is the conformance suite's view of the real CnosDB: a database of
// the test's own, written gzip-compressed, counted directly.
func suite(t *testing.T) loadtest.TargetSuite {
	base, db := cnosdbtest.RealDB(t)
	return loadtest.TargetSuite{Loader: "load_cnosdb", Upstream: base, New: faultTarget(db), Rows: faultRows(base, db), Values: "CnosDB"}
}

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real CnosDB, with its fault scenarios (faults: a re-sent row merges with
// itself, same series and time; a bad line, 422 040004, is refused for
// good; the kill is a CnosDB of the test's own) and its loader kills
// (resume: batches in doubt are sent again, and CnosDB stores a row of the
// same series and time once). Counts are read from the server directly,
// not through the proxy.
func TestTargetSuite(t *testing.T) {
	s := suite(t)
	s.Faults = &loadtest.FaultSuite{
		Refuse:    func(line string) string { return strings.Replace(line, " v=", " v=oops", 1) },
		RefuseErr: []string{"422 [040004] Error parsing message"},
		Private:   privateCnosDB,
	}
	s.Resume = &loadtest.ResumeSuite{Args: func(_ *testing.T, proxy, _, _ string) []string {
		return []string{"--urls", "http://" + proxy, "--user", "root"}
	}}
	s.Run(t, "suite")
}
