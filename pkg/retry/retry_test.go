package retry

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

var errBusy = errors.New("503 busy")

func TestDoSucceedsAfterRetries(t *testing.T) {
	n := 0
	var waits []time.Duration
	p := Policy{Min: time.Millisecond, Max: 4 * time.Millisecond, OnRetry: func(r int, w time.Duration, err error) {
		if r != len(waits)+1 || !errors.Is(err, errBusy) {
			t.Errorf("retry %d: %v", r, err)
		}
		waits = append(waits, w)
	}}
	err := p.Do(context.Background(), func(context.Context) error {
		if n++; n < 5 {
			return load.Retryable(errBusy)
		}
		return nil
	})
	if err != nil || n != 5 || len(waits) != 4 {
		t.Fatalf("err %v after %d calls, waits %v", err, n, waits)
	}
	// Waits double from Min to Max, each in [d/2, d].
	for i, d := range []time.Duration{1, 2, 4, 4} {
		d *= time.Millisecond
		if waits[i] < d/2 || waits[i] > d {
			t.Errorf("wait %d = %s, want within [%s, %s]", i+1, waits[i], d/2, d)
		}
	}
}

func TestDoReturnsFinalErrorsUnchanged(t *testing.T) {
	final := errors.New("400 bad request")
	n := 0
	err := Policy{}.Do(context.Background(), func(context.Context) error { n++; return final })
	if err != final || n != 1 {
		t.Fatalf("err %v after %d calls", err, n)
	}
}

// TestDoGivesUpAtTheBudget runs on synctest's clock, where op takes no
// time and a wait exactly its length: waits of 2.5-5 ms (Jitter) fill a
// 30 ms budget with at least 6 of them, and Do gives up before a wait
// would pass it.
func TestDoGivesUpAtTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := Policy{Min: 5 * time.Millisecond, Max: 5 * time.Millisecond, Budget: 30 * time.Millisecond}
		t0 := time.Now()
		n := 0
		err := p.Do(context.Background(), func(context.Context) error { n++; return load.Retryable(errBusy) })
		var g *GiveUpError
		if !errors.As(err, &g) || g.Stopped || g.Retries != n-1 || !errors.Is(err, errBusy) {
			t.Fatalf("err %v (%d calls)", err, n)
		}
		if d := time.Since(t0); d != g.Elapsed || d > p.Budget || d+p.Min <= p.Budget || n < 7 {
			t.Fatalf("gave up after %s (error says %s) and %d calls", d, g.Elapsed, n)
		}
	})
}

func TestDoHonoursTheServersFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		t0 := time.Now()
		err := Policy{Min: time.Millisecond}.Do(context.Background(), func(context.Context) error {
			if n++; n == 1 {
				return load.RetryableAfter(errBusy, 40*time.Millisecond)
			}
			return nil
		})
		if d := time.Since(t0); err != nil || d != 40*time.Millisecond {
			t.Fatalf("err %v after %s, want the server's 40ms", err, d)
		}
	})
	// A floor past the budget gives up at once instead of waiting.
	err := Policy{Budget: 10 * time.Millisecond}.Do(context.Background(), func(context.Context) error {
		return load.RetryableAfter(errBusy, time.Hour)
	})
	var g *GiveUpError
	if !errors.As(err, &g) || g.Retries != 0 {
		t.Fatalf("err %v", err)
	}
}

func TestDoStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	err := Policy{Min: time.Hour}.Do(ctx, func(context.Context) error { return load.Retryable(errBusy) })
	var g *GiveUpError
	if !errors.As(err, &g) || !g.Stopped || !errors.Is(err, errBusy) {
		t.Fatalf("err %v", err)
	}
}

func TestJitter(t *testing.T) {
	for range 1000 {
		if j := Jitter(10 * time.Millisecond); j < 5*time.Millisecond || j > 10*time.Millisecond {
			t.Fatalf("Jitter(10ms) = %s", j)
		}
	}
	if Jitter(0) != 0 {
		t.Fatal("Jitter(0)")
	}
}
