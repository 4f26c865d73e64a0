package runner

import (
	"context"
	"fmt"

	"github.com/tsload/tsload/pkg/cost"
	"github.com/tsload/tsload/pkg/results"
)

// storage is how pkg/cost asks the target for the loaded tables' size.
func (r *run) storage() cost.Storage {
	if r.target == nil {
		return cost.Storage{}
	}
	return cost.Storage{Footprint: r.target.Footprint, Flush: r.hooks.FlushStorage}
}

// footprintAfterLoad measures the footprint right after the load (before
// verification), unless the load failed (the server may be gone: its
// size would cost a timeout and mean nothing).
func (r *run) footprintAfterLoad(ctx context.Context, tot totals, loadErr error) {
	if loadErr != nil || !r.cfg.DoLoad || !r.started() || len(tot.tables) == 0 {
		return
	}
	r.cost.AfterLoad(ctx, r.storage(), sortedKeys(tot.tables))
}

// finishCost waits for the footprint to settle and fills Results.Cost.
func (r *run) finishCost(ctx context.Context) {
	if !r.cost.Started() {
		return
	}
	res := r.res
	unmeasured := "the load failed"
	switch {
	case !r.cfg.DoLoad:
		unmeasured = "nothing sent to a server"
	case res.Rows == 0:
		unmeasured = "no rows loaded"
	case r.interrupted:
		unmeasured = "the load was interrupted"
	}
	res.Cost = &results.Cost{
		Loader:       r.cost.Loader(res.Rows),
		Server:       r.cost.Server(res.Rows),
		Interference: r.cost.Interference(),
	}
	res.Cost.Footprint = r.cost.Settle(ctx, r.storage(), unmeasured, r.footprintRatios)
}

// footprintRatios fills the per-row and per-input figures of fp.
func (r *run) footprintRatios(fp *results.Footprint) {
	res := r.res
	fp.Rows, fp.Metrics = res.Rows, res.Metrics
	if rows, metrics, ok := r.wholeLoadMetrics(); ok {
		// A resumed load: the tables hold every run's rows, and bytes per
		// metric divides by every run's metrics as bytes per row by every
		// run's rows.
		fp.Rows, fp.Metrics = rows, metrics
		if metrics < 0 {
			fp.Metrics = 0
			fp.Note = joinNote(fp.Note, "no bytes per metric: the metrics of batches an earlier run left in doubt are not known")
		}
	}
	if v := res.Verify; v != nil && len(v.Actual) > 0 {
		var before, actual int64
		for _, n := range fp.Tables {
			before += v.Before[n]
			actual += v.Actual[n]
		}
		fp.Rows = actual
		if before > 0 {
			fp.Metrics = 0 // unknown for the rows already there
			fp.Note = joinNote(fp.Note, fmt.Sprintf("the tables held %d rows before this run: the size and bytes per row are of all %d rows", before, actual))
		}
	}
	b := float64(fp.SettledBytes)
	if fp.Rows > 0 {
		fp.BytesPerRow = b / float64(fp.Rows)
	}
	if fp.Metrics > 0 {
		fp.BytesPerMetric = b / float64(fp.Metrics)
	}
	if res.Bytes > 0 && fp.Rows == res.Rows {
		fp.InputRatio = b / float64(res.Bytes)
		compressed := r.in.totalSize > 0 && r.in.totalSize < res.Bytes
		for _, g := range r.in.inputGzip {
			compressed = compressed || g
		}
		if compressed && r.in.totalSize > 0 && r.cfg.Limit == 0 {
			fp.CompressedInputRatio = b / float64(r.in.totalSize)
		}
	}
}

// joinNote joins two notes with "; ", either of which may be empty.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
