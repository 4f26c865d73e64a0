package timescale

import (
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
)

// TestMultiTableLoadHasNoDeadlock loads devops ILP (nine hypertables) with
// four workers into hypertables of short chunks, so that every worker's
// batch creates chunks in several tables at once: the load must need no
// retry at all. Before a batch's tables were written in one fixed order,
// two transactions took the hypertables' chunk-creation locks
// (ShareUpdateExclusiveLock, held to COMMIT) in opposite orders and the
// server broke the cycle with 40P01, which the runner retried.
func TestMultiTableLoadHasNoDeadlock(t *testing.T) {
	requireServer(t)
	if testing.Short() {
		t.Skip("loads 3 x 81,000 rows")
	}
	file, rows := gentest.GenFile(t, t.TempDir(), "devops.ilp", "devops", format.ILP, 100, 15*time.Minute)
	for run := 1; run <= 3; run++ {
		r := runFault(t, Config{URL: pgURL(), UseHypertable: "true", ChunkTime: time.Minute}, file, 3000, 4)
		r.Exact(t, rows)
		if r.Res.Retries != 0 || strings.Contains(r.Log, "40P01") {
			t.Fatalf("run %d: %d retries (want none)\n%s", run, r.Res.Retries, r.Log)
		}
	}
}
