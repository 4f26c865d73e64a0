package verify

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
)

// The distinct-key pass (docs/verify.md "Repeated keys and --verify
// count"): on a target that stores two rows of one (series, timestamp)
// key as one point (load.Hooks.Overwrites), a table that holds fewer rows
// than acknowledged may hold every point the input has. Only then (the
// common case costs nothing) the inputs are read again as the load read
// them, each row's key hashed to 64 bits (fingerprint.HashPair of the
// series' canonical tag set and the timestamp), and the distinct keys are
// counted per table in bounded memory (KeyStore). The table passes when
// it holds exactly its rows before plus the distinct keys of this load.

// CountDistinct counts each table's distinct (series, timestamp) keys of
// the batches read hands to queue (taking empty ones from free; it reads
// the inputs as the load did, nothing written), checked as the load
// checked them on workers goroutines. tableOf maps a table name as read
// to the name it is verified under (VerifiedName); memKeys is how many
// key hashes are held in memory before they spill to temporary files.
func CountDistinct(ctx context.Context, workers, memKeys int, skipInvalid bool, tableOf func(string) string,
	read func(ctx context.Context, free, queue chan *load.Batch) error) (*KeyCount, error) {
	t0 := time.Now()
	store := NewKeyStore(memKeys)
	defer store.Close()
	nw := max(1, workers)
	free := make(chan *load.Batch, 2*nw)
	for range 2 * nw {
		free <- new(load.Batch)
	}
	queue := make(chan *load.Batch, nw)
	accs := make([]*fingerprint.Acc, nw)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(queue)
		return read(gctx, free, queue)
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
				_, err := chk.Check(b, skipInvalid)
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
	kc := &KeyCount{Rows: map[string]int64{}, Distinct: map[string]int64{}, NoTime: map[string]int64{}}
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

// VerifiedName maps a table name as read (no prefix) to the name it is
// verified under: prefixed, and folded (fold: load.Hooks.FoldName) to the
// spelling among names that the target takes for the same table.
func VerifiedName(prefix string, fold func(string) string, names []string) func(string) string {
	folded := map[string]string{}
	if fold != nil {
		for _, n := range names {
			if _, ok := folded[fold(n)]; !ok {
				folded[fold(n)] = n
			}
		}
	}
	return func(table string) string {
		n := prefix + table
		if fold != nil {
			if c, ok := folded[fold(n)]; ok {
				return c
			}
		}
		return n
	}
}
