package queryload_test

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/verify"
)

// memTarget is an in-memory database without a querier: it commits what
// its writers acknowledge and counts it per table (the engine verifies the
// counts).
type memTarget struct {
	load.Unsupported
	mu       sync.Mutex
	prepared *load.PrepareOptions
	rows     map[string]int64
	delay    time.Duration // each write takes this long
}

func newMemTarget() *memTarget { return &memTarget{rows: map[string]int64{}} }

func (f *memTarget) Accepts(format.Format) error { return nil }

func (f *memTarget) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	f.prepared = &opts
	return nil
}

func (f *memTarget) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	return memWriter{f}, nil
}

func (f *memTarget) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int64{}
	for _, t := range tables {
		out[t] = f.rows[t]
	}
	return out, nil
}

func (f *memTarget) Close() error { return nil }

type memWriter struct{ f *memTarget }

func (w memWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if w.f.delay > 0 {
		time.Sleep(w.f.delay)
	}
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	for _, t := range b.Tables {
		w.f.rows[t.Name] += t.Rows
	}
	return load.Ack{Rows: b.Rows}, nil
}

func (memWriter) Close() error { return nil }

func baseConfig(inputs ...string) runner.Config {
	return runner.Config{
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
	verify.RecountPause = 10 * time.Millisecond
}
