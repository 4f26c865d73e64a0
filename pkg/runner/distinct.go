package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/verify"
)

// The distinct-key pass (docs/verify.md "Repeated keys and --verify
// count"): on a target that stores two rows of one (series, timestamp)
// key as one point (load.Hooks.Overwrites), a table that holds fewer rows than
// acknowledged may hold every point the input has. Only then (the common
// case costs nothing) the inputs are read again as the load read them,
// each row's key hashed to 64 bits (fingerprint.HashPair of the series'
// canonical tag set and the timestamp), and the distinct keys are counted
// per table in bounded memory (verify.KeyStore). The table passes when it holds
// exactly its rows before plus the distinct keys of this load.

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
	t0 := time.Now()
	store := verify.NewKeyStore(distinctMemKeys)
	defer store.Close()
	tableOf := r.verifiedName(names)
	nw := max(1, r.cfg.Workers)
	free := make(chan *load.Batch, 2*nw)
	for range 2 * nw {
		free <- new(load.Batch)
	}
	queue := make(chan *load.Batch, nw)
	accs := make([]*fingerprint.Acc, nw)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(queue)
		return r.readAgain(gctx, free, queue)
	})
	for i := range accs {
		bufs := map[string]*[]uint64{}
		accs[i] = fingerprint.NewAcc(fingerprint.Options{KeySink: func(table string) func(uint64) {
			k := tableOf(table)
			buf := bufs[k] // names the target folds share one
			if buf == nil {
				buf = new([]uint64)
				bufs[k] = buf
			}
			return func(h uint64) { *buf = append(*buf, h) }
		}})
		chk := split.Checker{FP: accs[i], KeysOnly: true}
		g.Go(func() (err error) {
			split.WatchFaults()
			defer split.CatchFault(&err)
			for b := range queue {
				_, err := chk.Check(b, r.cfg.SkipInvalid)
				b.Release()
				free <- b
				if err == nil {
					err = store.AddAll(bufs)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	acc := accs[0]
	for _, a := range accs[1:] {
		acc.Merge(a)
	}
	if f := acc.Failed(); f != "" {
		return nil, errors.New(f)
	}
	kc := &verify.KeyCount{Rows: map[string]int64{}, Distinct: map[string]int64{}, NoTime: map[string]int64{}}
	for n, rd := range acc.Result() {
		k := tableOf(n)
		kc.Rows[k] += rd.Rows
		kc.NoTime[k] += rd.NoTime
		kc.Distinct[k] += rd.NoTime
	}
	counts, err := store.Distinct()
	if err != nil {
		return nil, err
	}
	for k, d := range counts {
		kc.Distinct[k] += d
	}
	kc.Seconds, kc.PeakKeys, kc.Spilled = time.Since(t0).Seconds(), store.Peak(), store.Spilled()
	return kc, nil
}

// verifiedName maps a table name as read (no prefix) to the name it is
// verified under: prefixed, and folded to the spelling among names that
// the target takes for the same table (load.Hooks.FoldName).
func (r *run) verifiedName(names []string) func(string) string {
	fold := r.hooks.FoldName
	folded := map[string]string{}
	if fold != nil {
		for _, n := range names {
			if _, ok := folded[fold(n)]; !ok {
				folded[fold(n)] = n
			}
		}
	}
	return func(table string) string {
		n := r.cfg.TablePrefix + table
		if fold != nil {
			if c, ok := folded[fold(n)]; ok {
				return c
			}
		}
		return n
	}
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
