package questdb

import (
	"context"
	"strings"
	"testing"
	"time"
)

// fakeQuerier answers Count's queries from scripted wal_tables() states.
type fakeQuerier struct {
	wal    [][][]string // successive answers to wal_tables(); the last repeats
	polls  int
	tables [][]string
	counts map[string]string
}

func (f *fakeQuerier) query(_ context.Context, sql string) ([][]string, error) {
	switch {
	case strings.Contains(sql, "wal_tables()"):
		i := min(f.polls, len(f.wal)-1)
		f.polls++
		return f.wal[i], nil
	case strings.Contains(sql, "FROM tables()"):
		return f.tables, nil
	case strings.HasPrefix(sql, "SELECT count() FROM "):
		name := strings.Trim(strings.TrimPrefix(sql, "SELECT count() FROM "), `"`)
		return [][]string{{f.counts[name]}}, nil
	}
	return nil, nil
}

func (f *fakeQuerier) close() error { return nil }

func TestCountWaitsForWAL(t *testing.T) {
	fq := &fakeQuerier{
		wal: [][][]string{
			{{"a", "false", "1", "3", "", ""}, {"other", "true", "0", "9", "", ""}},
			{{"a", "false", "2", "3", "", ""}},
			{{"a", "false", "3", "3", "", ""}},
		},
		tables: [][]string{{"a"}},
		counts: map[string]string{"a": "42"},
	}
	tg, _ := New(Config{URL: "http://x:1"})
	tg.q = fq
	got, err := tg.Count(context.Background(), []string{"a", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if got["a"] != 42 || got["missing"] != 0 || fq.polls != 3 {
		t.Errorf("counts %v after %d polls, want a=42 missing=0 after 3", got, fq.polls)
	}
}

func TestCountSuspended(t *testing.T) {
	fq := &fakeQuerier{wal: [][][]string{{{"a", "true", "1", "3", "DISK_FULL", "no space left"}}}}
	tg, _ := New(Config{URL: "http://x:1"})
	tg.q = fq
	_, err := tg.Count(context.Background(), []string{"a"})
	if err == nil || !strings.Contains(err.Error(), `table "a" is suspended`) || !strings.Contains(err.Error(), "no space left") || !strings.Contains(err.Error(), "RESUME WAL") {
		t.Fatalf("suspended: %v", err)
	}
}

func TestCountTimeout(t *testing.T) {
	fq := &fakeQuerier{wal: [][][]string{{{"a", "false", "1", "3", "", ""}}}}
	tg, _ := New(Config{URL: "http://x:1", WALTimeout: 300 * time.Millisecond})
	tg.q = fq
	_, err := tg.Count(context.Background(), []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "gave up after 300ms") || !strings.Contains(err.Error(), "a writerTxn 1 < sequencerTxn 3") {
		t.Fatalf("timeout: %v", err)
	}
}

func TestCountSettleTCP(t *testing.T) {
	// TCP: the sequencer moves on after the last write; Count waits until
	// the state has been still for Settle.
	fq := &fakeQuerier{
		wal: [][][]string{
			{{"a", "false", "1", "1", "", ""}},
			{{"a", "false", "1", "2", "", ""}},
			{{"a", "false", "2", "2", "", ""}},
		},
		tables: [][]string{{"a"}},
		counts: map[string]string{"a": "7"},
	}
	tg, _ := New(Config{Transport: TCP, TCPAddr: "x:1", URL: "http://x:1", Settle: 250 * time.Millisecond})
	tg.q = fq
	start := time.Now()
	got, err := tg.Count(context.Background(), []string{"a"})
	if err != nil || got["a"] != 7 {
		t.Fatalf("%v %v", got, err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("returned after %v, before the state settled", d)
	}
}
