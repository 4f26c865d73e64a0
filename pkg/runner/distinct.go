package runner

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
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
// per table in bounded memory (keyStore). The table passes when it holds
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
	store := &keyStore{limit: distinctMemKeys}
	defer store.close()
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
					err = store.addAll(bufs)
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
	counts, err := store.distinct()
	if err != nil {
		return nil, err
	}
	for k, d := range counts {
		kc.Distinct[k] += d
	}
	kc.Seconds, kc.PeakKeys, kc.Spilled = time.Since(t0).Seconds(), store.peak, store.spilled
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

// keyStore counts distinct 64-bit keys per table in bounded memory. Keys
// are held in memory up to limit; when that fills, each table's keys are
// sorted and made unique in place, and when more than half the limit is
// still held, every table's sorted keys are written to a temporary file
// (a run) and memory is emptied. distinct merges each table's runs. The
// memory bound is limit keys (8 bytes each) plus, while merging, one
// 64 KiB buffer per run of a table.
type keyStore struct {
	mu      sync.Mutex
	limit   int
	held    int
	peak    int
	spilled int64 // bytes written to runs
	dir     string
	tables  map[string]*keyTable
}

type keyTable struct {
	keys []uint64
	runs []string // files of sorted unique keys, little-endian
}

// addAll moves a worker's buffered keys (by table) into the store.
func (s *keyStore) addAll(bufs map[string]*[]uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, buf := range bufs {
		if len(*buf) == 0 {
			continue
		}
		if s.tables == nil {
			s.tables = map[string]*keyTable{}
		}
		t := s.tables[name]
		if t == nil {
			t = &keyTable{}
			s.tables[name] = t
		}
		t.keys = append(t.keys, *buf...)
		s.held += len(*buf)
		*buf = (*buf)[:0]
	}
	s.peak = max(s.peak, s.held)
	if s.held < s.limit {
		return nil
	}
	s.compact()
	if 2*s.held <= s.limit {
		return nil
	}
	return s.spill()
}

// compact sorts every table's keys and drops repeats.
func (s *keyStore) compact() {
	s.held = 0
	for _, t := range s.tables {
		slices.Sort(t.keys)
		t.keys = slices.Compact(t.keys)
		s.held += len(t.keys)
	}
}

// spill writes every table's sorted unique keys to a run of its own.
func (s *keyStore) spill() error {
	if s.dir == "" {
		d, err := os.MkdirTemp("", "tsload-keys-")
		if err != nil {
			return fmt.Errorf("a directory for the keys: %w", err)
		}
		s.dir = d
	}
	for _, t := range s.tables {
		if len(t.keys) == 0 {
			continue
		}
		f, err := os.CreateTemp(s.dir, "run-")
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 64<<10)
		var b [8]byte
		for _, k := range t.keys {
			binary.LittleEndian.PutUint64(b[:], k)
			w.Write(b[:]) // the error sticks: Flush returns it
		}
		err = w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing keys to %s: %w", f.Name(), err)
		}
		s.spilled += int64(8 * len(t.keys))
		t.runs = append(t.runs, f.Name())
		t.keys = t.keys[:0]
	}
	s.held = 0
	return nil
}

// distinct returns each table's number of distinct keys.
func (s *keyStore) distinct() (map[string]int64, error) {
	s.compact()
	out := make(map[string]int64, len(s.tables))
	for name, t := range s.tables {
		if len(t.runs) == 0 {
			out[name] = int64(len(t.keys))
			continue
		}
		n, err := mergeCount(t)
		if err != nil {
			return nil, err
		}
		out[name] = n
		t.keys = nil
	}
	return out, nil
}

// mergeCount counts the distinct keys of t's runs and memory (each
// sorted and unique) in one merge.
func mergeCount(t *keyTable) (int64, error) {
	var h runHeap
	if len(t.keys) > 0 {
		h = append(h, &runReader{mem: t.keys})
	}
	for _, path := range t.runs {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		h = append(h, &runReader{r: bufio.NewReaderSize(f, 64<<10)})
	}
	live := h[:0]
	for _, rr := range h {
		ok, err := rr.next()
		if err != nil {
			return 0, err
		}
		if ok {
			live = append(live, rr)
		}
	}
	h = live
	heap.Init(&h)
	var n int64
	var last uint64
	for len(h) > 0 {
		rr := h[0]
		if n == 0 || rr.v != last {
			n++
			last = rr.v
		}
		ok, err := rr.next()
		if err != nil {
			return 0, err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return n, nil
}

// runReader reads a run of sorted keys from a file or memory.
type runReader struct {
	r   *bufio.Reader
	mem []uint64
	v   uint64
	b   [8]byte
}

func (rr *runReader) next() (bool, error) {
	if rr.r == nil {
		if len(rr.mem) == 0 {
			return false, nil
		}
		rr.v, rr.mem = rr.mem[0], rr.mem[1:]
		return true, nil
	}
	if _, err := io.ReadFull(rr.r, rr.b[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	rr.v = binary.LittleEndian.Uint64(rr.b[:])
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return h[i].v < h[j].v }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// close removes the runs.
func (s *keyStore) close() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
