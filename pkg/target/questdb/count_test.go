package questdb

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// fakeQuerier answers Count's queries from scripted wal_tables() states.
type fakeQuerier struct {
	wal    [][][]string // successive answers to wal_tables(); the last repeats
	polls  int
	tables [][]string
	counts map[string]string
	// rising, when set, are the successive counts of table "a".
	rising []string
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
		if name == "a" && len(f.rising) > 0 {
			c := f.rising[0]
			if len(f.rising) > 1 {
				f.rising = f.rising[1:]
			}
			return [][]string{{c}}, nil
		}
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

// TestAwaitTCP: over TCP, Await returns as soon as the rows sent are
// counted with the WAL applied, however long Settle is.
func TestAwaitTCP(t *testing.T) {
	fq := &fakeQuerier{
		wal: [][][]string{
			{{"a", "false", "1", "1", "", ""}},
			{{"a", "false", "1", "2", "", ""}},
			{{"a", "false", "2", "2", "", ""}},
		},
		tables: [][]string{{"a"}},
		rising: []string{"5", "7"},
	}
	tg, _ := New(Config{Transport: TCP, TCPAddr: "x:1", URL: "http://x:1", Settle: time.Hour})
	tg.q = fq
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := tg.Await(context.Background(), map[string]int64{"a": 7}); err != nil {
			t.Fatal(err)
		}
		// synctest's clock: Await's own polls, not Settle's hour.
		if d := time.Since(start); d >= time.Hour {
			t.Errorf("returned after %v: it should not wait once the rows are there", d)
		}
	})
	got, err := tg.Count(context.Background(), []string{"a"})
	if err != nil || got["a"] != 7 {
		t.Fatalf("%v %v", got, err)
	}
}

// TestAwaitTCPGivesUp: rows that do not arrive are waited for only while
// something changes, then for Settle.
func TestAwaitTCPGivesUp(t *testing.T) {
	fq := &fakeQuerier{
		wal:    [][][]string{{{"a", "false", "2", "2", "", ""}}},
		tables: [][]string{{"a"}},
		counts: map[string]string{"a": "5"},
	}
	tg, _ := New(Config{Transport: TCP, TCPAddr: "x:1", URL: "http://x:1", Settle: 200 * time.Millisecond})
	tg.q = fq
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := tg.Await(context.Background(), map[string]int64{"a": 7})
		if err == nil || !strings.Contains(err.Error(), "a has 5 of 7 rows") {
			t.Fatalf("err %v", err)
		}
		if d := time.Since(start); d < 200*time.Millisecond || d > 250*time.Millisecond {
			t.Errorf("gave up after %v (synctest's clock), want Settle's 200ms, at most one 50ms poll more", d)
		}
	})
	// HTTP acknowledged the rows into the WAL: nothing to wait for.
	tg, _ = New(Config{URL: "http://x:1"})
	tg.q = fq
	if err := tg.Await(context.Background(), map[string]int64{"a": 7}); err != nil {
		t.Fatal(err)
	}
}
