package influx

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real InfluxDB 1.x; its faults and resumes are TestFaults' and
// TestResumeAfterLoaderKill's.
func TestTargetSuite(t *testing.T) {
	loadtest.TargetSuite{Loader: "load_influx", Upstream: influxURL(t), New: faultTarget(uniqueDB(t)), Rows: pointRows}.Run(t, "suite")
}
