package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/load"
)

// TestVerifyAppends: loading into tables that already hold rows verifies
// what this run added (rows before + acknowledged = rows after).
func TestVerifyAppends(t *testing.T) {
	path, perTable := ilpInput(t, 300)
	f := newFake()
	f.rows["cpu"], f.rows["mem"] = 1000, 7
	res, err := Run(context.Background(), baseConfig(path), f)
	if err != nil || !res.Verify.OK {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
	v := res.Verify
	if v.Before["cpu"] != 1000 || v.Before["mem"] != 7 || v.Before["disk"] != 0 ||
		v.Expected["cpu"] != 1000+perTable["cpu"] || v.Actual["cpu"] != 1000+perTable["cpu"] {
		t.Fatalf("verify %+v", v)
	}
}

// concurrentWriter adds rows to cpu with every batch it is given, as
// another client writing into the same table would.
type concurrentWriter struct{ *fakeTarget }

func (c concurrentWriter) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := c.fakeTarget.NewWriter(ctx, worker)
	return stranger{w, c.fakeTarget}, err
}

type stranger struct {
	load.Writer
	f *fakeTarget
}

func (s stranger) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	ack, err := s.Writer.Write(ctx, b)
	s.f.mu.Lock()
	s.f.rows["cpu"] += 3
	s.f.mu.Unlock()
	return ack, err
}

// TestVerifyConcurrentWriter: rows this run did not send are reported as
// another client's, not as a loss.
func TestVerifyConcurrentWriter(t *testing.T) {
	path, _ := ilpInput(t, 300)
	f := newFake()
	res, err := Run(context.Background(), baseConfig(path), concurrentWriter{f})
	if err == nil || !strings.Contains(err.Error(), "another client changed the tables during the load (not a loss by this run): cpu:") ||
		!strings.Contains(err.Error(), "this run did not write") || res.Verify.OK || !strings.Contains(res.Verify.Note, "another client") {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
}

// movingTarget's counts grow by one on every count, as a table another
// client keeps writing into.
type movingTarget struct{ *fakeTarget }

func (m movingTarget) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	m.mu.Lock()
	if m.rows["mem"] != 0 {
		m.rows["mem"]--
	}
	m.mu.Unlock()
	return m.fakeTarget.Count(ctx, tables)
}

// TestVerifyMovingCount: a count that still moves after this run finished
// is another writer (here one deleting rows), not this run's loss.
func TestVerifyMovingCount(t *testing.T) {
	path, _ := ilpInput(t, 300)
	res, err := Run(context.Background(), baseConfig(path), movingTarget{newFake()})
	if err == nil || !strings.Contains(err.Error(), "mem: count moved from 99 to 98 after this run had finished") || res.Verify.OK {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
}

// overwriting is a target that overwrites identical points: every batch
// is acknowledged and the points replace those already there.
type overwriting struct{ *fakeTarget }

func (overwriting) Hooks() load.Hooks { return load.Hooks{Overwrites: true} }

func (overwriting) NewWriter(context.Context, int) (load.Writer, error) { return rewriter{}, nil }

type rewriter struct{}

func (rewriter) Write(_ context.Context, b *load.Batch) (load.Ack, error) {
	return load.Ack{Rows: b.Rows}, nil
}
func (rewriter) Close() error { return nil }

// TestVerifyOverwrites: loading points a table holds already into a target
// that overwrites identical points adds nothing to the count; verification
// says so instead of failing. Into empty tables, a shortfall still fails.
func TestVerifyOverwrites(t *testing.T) {
	path, perTable := ilpInput(t, 300)
	f := newFake()
	f.rows["cpu"], f.rows["mem"], f.rows["disk"] = perTable["cpu"], perTable["mem"], perTable["disk"]
	res, err := Run(context.Background(), baseConfig(path), overwriting{f})
	if err != nil || !res.Verify.OK || !strings.Contains(res.Verify.Note, "overwrites identical points") {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
	if _, err := Run(context.Background(), baseConfig(path), overwriting{newFake()}); err == nil || !strings.Contains(err.Error(), "row counts differ") {
		t.Fatalf("into empty tables: err %v", err)
	}
}
