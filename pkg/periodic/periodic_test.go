package periodic

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestEveryStops: fn runs at the period until stop; stop returns only
// once a call in progress has returned, and no call starts after it.
func TestEveryStops(t *testing.T) {
	var started, finished atomic.Int64
	third := make(chan struct{})
	stop := Every(time.Millisecond, func() {
		if started.Add(1) == 3 {
			close(third)
			time.Sleep(20 * time.Millisecond) // still running when stop is called
		}
		finished.Add(1)
	})
	<-third
	stop()
	n, done := started.Load(), finished.Load()
	if done != n {
		t.Fatalf("stop returned with a call in progress: %d started, %d finished", n, done)
	}
	time.Sleep(10 * time.Millisecond)
	if started.Load() != n {
		t.Fatalf("fn ran after stop returned: %d calls at stop, %d after", n, started.Load()-n)
	}
}

// TestEveryRefusesNoPeriod: a zero period panics in the caller (where
// its stack names the call), before any goroutine starts.
func TestEveryRefusesNoPeriod(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "period must be positive") {
			t.Fatalf("recovered %v", r)
		}
	}()
	Every(0, func() {})
}

func ExampleEvery() {
	ticks := make(chan struct{}, 1)
	stop := Every(time.Millisecond, func() {
		select {
		case ticks <- struct{}{}:
		default:
		}
	})
	<-ticks // the first call, one period from now
	stop()  // no call runs after this
	// Output:
}
