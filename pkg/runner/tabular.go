package runner

import (
	"context"
	"io"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/tabular"
)

// Accepts is what the runner loads into t from input of format f: what t
// takes itself, and CSV into a target of line protocol only, which the
// workers turn into lines (tabular.Accepts).
func Accepts(t load.Target, f format.Format) error { return tabular.Accepts(t, f) }

// ownData is the run's tabular input it did not write itself.
type ownData = tabular.Data

// newOwnData prepares the loading of tabular data the run did not write
// (package tabular) before the inputs are opened; the splitter's Lookup
// goes through the database's catalog from then on.
func (r *run) newOwnData(ctx context.Context) *tabular.Data {
	o := tabular.New(ctx, tabular.Config{Target: r.target, Hooks: r.hooks, DoLoad: r.cfg.DoLoad, Prepare: r.cfg.Prepare,
		Prefix: r.cfg.TablePrefix, Lookup: r.cfg.Lookup, Mapping: r.cfg.Mapping, Stderr: r.cfg.Stderr,
		Skip: func(s split.Skipped) {
			r.onSkip(s)
			r.n.skipped.Add(1)
			r.n.rowsRead.Add(-1)
		},
		FirstBatch: r.firstBatch})
	r.cfg.Lookup = o.Lookup()
	return o
}

// tabularInputs are the inputs opened (openInputs), in order.
func (r *run) tabularInputs() []tabular.Input {
	ins := make([]tabular.Input, len(r.in.formats))
	for i, f := range r.in.formats {
		ins[i] = tabular.Input{Source: f.source, Format: f.format}
	}
	return ins
}

// firstBatch is the first batch (at most rows rows) of input path, from a
// second opening of it; nil for stdin, which cannot be read twice.
// release gives back what it holds.
func (r *run) firstBatch(path string, rows int) (b *load.Batch, release func(), err error) {
	if len(r.cfg.Inputs) == 0 || path == "stdin" {
		return nil, func() {}, nil
	}
	in, err := split.Open(path, nil, r.cfg.MaxRecordBytes)
	if err != nil {
		return nil, func() {}, err
	}
	c := r.splitConfig()
	c.BatchSize, c.Parts, c.Limit, c.DeferChecks, c.OnSkip = rows, 1, int64(rows), false, nil
	sp, err := split.New(in, c)
	if err != nil {
		in.Close()
		return nil, func() {}, err
	}
	b = new(load.Batch)
	release = func() { b.Release(); sp.Release(); in.Close() }
	if _, err := sp.Next(b); err != nil && err != io.EOF {
		release()
		return nil, func() {}, err
	}
	return b, release, nil
}
