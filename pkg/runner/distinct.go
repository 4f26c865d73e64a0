package runner

import (
	"context"
	"fmt"
	"io"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/verify"
)

// The distinct-key pass (verify.CountDistinct, docs/verify.md "Repeated
// keys and --verify count"): the runner reads its inputs again as the load
// read them; package verify counts their distinct keys.

// distinctMemKeys is how many key hashes the pass holds in memory
// (8 bytes each: 64 MiB) before it sorts them and, when that does not
// halve them, writes them to temporary files (a variable for tests).
var distinctMemKeys = 8 << 20

// distinctKeys runs the pass for verification (names: the tables verified)
// and prints its cost; why says why it could not run.
func (r *run) distinctKeys(ctx context.Context, names []string) (kc *verify.KeyCount, why string) {
	switch {
	case len(r.cfg.Inputs) == 0:
		return nil, "the input was stdin, which cannot be read again"
	case r.cfg.Loop:
		return nil, "a looped load shifts each pass's timestamps"
	}
	for _, in := range r.cfg.Inputs {
		if in == "-" {
			return nil, "the input was stdin, which cannot be read again"
		}
	}
	fmt.Fprintf(r.cfg.Stderr, "verify: fewer rows than acknowledged on a target that overwrites points of one (series, time) key: reading the input again to count its distinct keys\n")
	kc, err := r.countDistinct(ctx, names)
	if err != nil {
		return nil, "counting the input's distinct keys failed: " + err.Error()
	}
	fmt.Fprintf(r.cfg.Stderr, "verify: distinct keys %s\n", kc.Cost())
	return kc, ""
}

// countDistinct reads the inputs as the load did (same splitter settings,
// limit and checks, nothing written) on cfg.Workers goroutines and counts
// each table's distinct (series, timestamp) keys.
func (r *run) countDistinct(ctx context.Context, names []string) (*verify.KeyCount, error) {
	return verify.CountDistinct(ctx, r.cfg.Workers, distinctMemKeys, r.cfg.SkipInvalid,
		verify.VerifiedName(r.cfg.TablePrefix, r.hooks.FoldName, names), r.readAgain)
}

// readAgain splits the inputs into batches for countDistinct as readPass
// and readOne did for the load: the same splitter settings and row limit,
// nothing skipped reported again.
func (r *run) readAgain(ctx context.Context, free, queue chan *load.Batch) error {
	var read int64
	for _, path := range r.cfg.Inputs {
		in, err := r.openInput(path)
		if err != nil {
			return err
		}
		c := r.splitConfig()
		c.OnSkip = nil
		sp, err := split.New(in, c)
		if err != nil {
			in.Close()
			return err
		}
		if r.cfg.Limit > 0 {
			sp.SetLimit(r.cfg.Limit - read)
		}
		err = splitAll(ctx, sp, free, queue, &read)
		sp.Release()
		in.Close()
		if err != nil {
			return err
		}
		if r.cfg.Limit > 0 && read >= r.cfg.Limit {
			break
		}
	}
	return nil
}

// splitAll hands every batch of sp to queue, counting its rows in read.
func splitAll(ctx context.Context, sp *split.Splitter, free, queue chan *load.Batch, read *int64) error {
	for {
		var b *load.Batch
		select {
		case b = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, err := sp.Next(b); err != nil {
			free <- b
			if err == io.EOF {
				return nil
			}
			return err
		}
		*read += int64(b.Rows)
		select {
		case queue <- b:
		case <-ctx.Done():
			b.Release()
			return ctx.Err()
		}
	}
}
