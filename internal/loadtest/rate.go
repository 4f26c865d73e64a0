package loadtest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/results"
)

// RateLines writes rows ILP lines of measurement table (ten series, a
// unique nanosecond timestamp per row) to a temporary file.
func RateLines(t testing.TB, table string, rows int) string {
	t.Helper()
	return faultLines(t, table, rows, 0, nil)
}

// PacedRuns runs the loader of spec through its command line against a
// real server, twice: paced at 10,000 rows/s (12,000 rows) and stepped
// (4k, 8k, 12k rows/s, 0.5 s each, then the staircase ends: 12,000 of the
// 20,000 rows). target(t, table) returns the connection and database flags
// of a fresh database or table named by table, cleaned up by the test.
// Each run must verify exactly what the schedule sent and record the pace
// in its results file: per period, per step, and the sustainable rate as
// the steps define it.
func PacedRuns(t *testing.T, spec loadcli.Spec, table string, target func(t *testing.T, table string) []string) {
	t.Run("rate", func(t *testing.T) {
		tb := table + "_rate"
		res, r := pacedCLI(t, spec, target(t, tb), RateLines(t, tb, 12000), "--rate", "10k")
		pc := res.Pace
		if res.Rows != 12000 || pc == nil || pc.Rate != 10000 {
			t.Fatalf("rows %d pace %+v\n%s", res.Rows, pc, r.Stderr)
		}
		// The last batch is due at 1.2 s: the run cannot be shorter, nor
		// offer more than the rate.
		if res.Seconds < 1.2 || pc.OfferedRowsPerSec > 10000*1.001 || pc.AchievedRowsPerSec > pc.OfferedRowsPerSec*1.001 {
			t.Errorf("%.3fs, offered %.0f achieved %.0f rows/s", res.Seconds, pc.OfferedRowsPerSec, pc.AchievedRowsPerSec)
		}
		if pc.LatencyFromDue.Max < res.Latency.Max || pc.LatencyFromDue.P50 < res.Latency.P50 {
			t.Errorf("latency from due %+v below from send %+v", pc.LatencyFromDue, res.Latency)
		}
		paced := 0
		for _, p := range res.Periods {
			if p.Pace != nil && p.Pace.Rate == 10000 {
				paced++
			}
		}
		if paced < 3 {
			t.Errorf("%d of %d periods carry the pace", paced, len(res.Periods))
		}
		t.Logf("offered %.0f achieved %.0f rows/s; from due %+v; from send %+v", pc.OfferedRowsPerSec, pc.AchievedRowsPerSec, pc.LatencyFromDue, res.Latency)
	})
	t.Run("steps", func(t *testing.T) {
		tb := table + "_steps"
		res, r := pacedCLI(t, spec, target(t, tb), RateLines(t, tb, 20000), "--rate-steps", "4k,4k,500ms,12k", "--slo", "p99=2s")
		// Every row read was loaded and verified (pacedCLI); a staircase
		// that kept up sent 12,000 of them in three steps, one that left a
		// backlog stopped there.
		pc := res.Pace
		if pc == nil || res.Rows != res.RowsRead || (!pc.Halted && (res.Rows != 12000 || len(pc.Steps) != 3)) {
			t.Fatalf("rows %d read %d pace %+v\n%s", res.Rows, res.RowsRead, pc, r.Stderr)
		}
		want := 0.0
		for i, st := range pc.Steps {
			if st.RowsPerSec != float64(4000*(i+1)) || st.Batches == 0 && st.Complete {
				t.Errorf("step %d: %+v", i, st)
			}
			if ok := st.Complete && st.Bounded && st.QuantileMillis < 2000; ok != st.OK {
				t.Errorf("step %d judged %v: %+v", i, st.OK, st)
			}
			if st.OK {
				want = st.RowsPerSec
			}
		}
		if pc.SustainableRowsPerSec != want || !strings.Contains(r.Stderr, "sustainable rate: ") {
			t.Errorf("sustainable %v rows/s, want %v from the steps %+v\n%s", pc.SustainableRowsPerSec, want, pc.Steps, r.Stderr)
		}
		t.Logf("sustainable %.0f rows/s; steps %+v", pc.SustainableRowsPerSec, pc.Steps)
	})
}

// pacedCLI runs one paced load of path with the target's flags, batches of
// 500 on 2 workers and a period of 250 ms, and returns its results file,
// which must say ok and verified.
func pacedCLI(t *testing.T, spec loadcli.Spec, target []string, path string, pace ...string) (results.Results, CLIRun) {
	t.Helper()
	resultsPath := filepath.Join(t.TempDir(), "results.json")
	args := append([]string{spec.Name, "--file", path, "--batch-size", "500", "--workers", "2",
		"--reporting-period", "250ms", "--results-file", resultsPath}, target...)
	r := RunCLI(t, spec, append(args, pace...), resultsPath, "")
	var res results.Results
	if err := json.Unmarshal(r.Results, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != results.StatusOK || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("status %s verify %+v\n%s", res.Status, res.Verify, r.Stderr)
	}
	return res, r
}
