package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/verify"
)

// fakeTarget is an in-memory database: it commits what its writers
// acknowledge and counts it per table.
type fakeTarget struct {
	load.Unsupported
	mu        sync.Mutex
	prepared  *load.PrepareOptions
	refuse    format.Format // Accepts refuses this format
	refuseILP bool          // and line protocol (so CSV is not written as lines)
	rows      map[string]int64
	countErr  int64 // added to every count (to fail verification)
	countFail int   // the first countFail counts fail (retryable)
	// fail decides the outcome of one attempt; nil: success.
	fail     func(b *load.Batch, attempt int) (load.Ack, error)
	attempts map[int64]int // per batch Seq
	delay    time.Duration
	delayFor func(b *load.Batch) time.Duration // extra delay per batch
	block    chan struct{}                     // when set, Write waits on it (or ctx) after the first batches
	// series order per worker: "worker:series" => last record number
	order    map[string]int64
	seriesW  map[string]int
	orderErr error
	batches  map[*load.Batch]bool
	inflight atomic.Int64
	maxIn    atomic.Int64
	writers  atomic.Int64
	counted  []string
}

func newFake() *fakeTarget {
	return &fakeTarget{rows: map[string]int64{}, attempts: map[int64]int{}, order: map[string]int64{}, seriesW: map[string]int{}, batches: map[*load.Batch]bool{}}
}

func (f *fakeTarget) Accepts(fm format.Format) error {
	if f.refuse != format.Unknown && fm == f.refuse || f.refuseILP && fm == format.ILP {
		return fmt.Errorf("the fake takes no %s", fm)
	}
	return nil
}

func (f *fakeTarget) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	f.prepared = &opts
	return nil
}

func (f *fakeTarget) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	f.writers.Add(1)
	return &fakeWriter{f: f, id: worker}, nil
}

func (f *fakeTarget) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counted = tables
	if f.countFail > 0 {
		f.countFail--
		return nil, load.Retryable(errors.New("connection reset"))
	}
	out := map[string]int64{}
	for _, t := range tables {
		out[t] = f.rows[t]
		if f.rows[t] != 0 {
			out[t] += f.countErr // a table this run wrote to
		}
	}
	return out, nil
}

func (f *fakeTarget) Close() error { return nil }

type fakeWriter struct {
	f  *fakeTarget
	id int
	n  int
}

func (w *fakeWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	f := w.f
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		m := f.maxIn.Load()
		if n <= m || f.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	w.n++
	if f.block != nil && w.n > 1 {
		select {
		case <-f.block:
		case <-ctx.Done():
			return load.Ack{}, ctx.Err()
		}
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	if f.delayFor != nil {
		select {
		case <-time.After(f.delayFor(b)):
		case <-ctx.Done():
			return load.Ack{}, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches[b] = true
	f.attempts[b.Seq]++
	ack := load.Ack{Rows: b.Rows}
	if f.fail != nil {
		var err error
		if ack, err = f.fail(b, f.attempts[b.Seq]); err != nil {
			return load.Ack{}, err
		}
	}
	// Series order: every ILP line "m,host=X ... <ts>" of a series must
	// come to one worker with increasing record numbers.
	for i, line := range bytes.Split(bytes.TrimSuffix(b.Data, []byte("\n")), []byte("\n")) {
		key, _, _ := bytes.Cut(line, []byte(" "))
		s := string(key)
		rec := b.FirstRecord + int64(i)
		if wk, ok := f.seriesW[s]; ok && wk != w.id && f.orderErr == nil {
			f.orderErr = fmt.Errorf("series %s on workers %d and %d", s, wk, w.id)
		}
		f.seriesW[s] = w.id
		_ = rec
	}
	if ack.Rows == b.Rows {
		for _, t := range b.Tables {
			f.rows[t.Name] += t.Rows
		}
	} else if len(b.Tables) > 0 {
		f.rows[b.Tables[0].Name] += int64(ack.Rows)
	}
	return ack, nil
}

func (w *fakeWriter) Close() error { return nil }

// ilpInput writes n rows over 3 measurements and 7 hosts to a temp file.
func ilpInput(t testing.TB, n int) (path string, perTable map[string]int64) {
	var buf bytes.Buffer
	perTable = map[string]int64{}
	ms := []string{"cpu", "mem", "disk"}
	for i := 0; i < n; i++ {
		m := ms[i%3]
		perTable[m]++
		fmt.Fprintf(&buf, "%s,host=h%d a=%d,b=2i %d\n", m, i%7, i, 1451606400000000000+int64(i/21)*1e9)
	}
	path = filepath.Join(t.TempDir(), "data.ilp")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, perTable
}

func baseConfig(inputs ...string) Config {
	return Config{
		Inputs:          inputs,
		BatchSize:       1000,
		Workers:         3,
		DoLoad:          true,
		Verify:          true,
		ReportingPeriod: time.Hour,
		RetryTimeout:    5 * time.Second,
		Stderr:          &bytes.Buffer{},
		Loader:          "load_fake",
		Target:          "fake",
	}
}

func init() {
	backoffMin, backoffMax = time.Millisecond, 10*time.Millisecond
	verify.RecountPause = 10 * time.Millisecond
}

var errDisk = errors.New("disk full (server)")

// failAt is a fake's fail that refuses batch seq with errDisk (not
// retryable) and acknowledges every other batch whole.
func failAt(seq int64) func(*load.Batch, int) (load.Ack, error) {
	return func(b *load.Batch, _ int) (load.Ack, error) {
		if b.Seq == seq {
			return load.Ack{}, errDisk
		}
		return load.Ack{Rows: b.Rows}, nil
	}
}

func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}
