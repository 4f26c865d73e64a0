package timescale

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
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
	file := filepath.Join(t.TempDir(), "devops.ilp")
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: "devops", Format: format.ILP, Seed: 1, Scale: 100, File: file, Workers: 1,
		Start: time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2016, 1, 1, 0, 15, 0, 0, time.UTC),
		Stderr: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 3; run++ {
		cfg := Config{URL: pgURL(), DBName: testDBName(t), UseHypertable: "true", ChunkTime: time.Minute}
		tg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		res, err := runner.Run(context.Background(), runner.Config{
			Inputs: []string{file}, BatchSize: 3000, Workers: 4,
			DoLoad: true, Verify: true, ReportingPeriod: time.Minute, RetryTimeout: time.Minute,
			Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
			Stderr:  &stderr, Loader: "load_timescale", Target: "timescale",
		}, tg)
		tg.Close()
		dropDB(t, cfg.DBName)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stderr.String())
		}
		if res.Status != load.StatusOK || res.Rows != st.Rows || res.Verify == nil || !res.Verify.OK {
			t.Fatalf("run %d: status %s rows %d (generated %d) verify %+v\n%s", run, res.Status, res.Rows, st.Rows, res.Verify, stderr.String())
		}
		if res.Retries != 0 || strings.Contains(stderr.String(), "40P01") {
			t.Fatalf("run %d: %d retries (want none)\n%s", run, res.Retries, stderr.String())
		}
	}
}
