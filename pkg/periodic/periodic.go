// Package periodic runs a function on a goroutine of its own at a fixed
// period until it is stopped: the generator's progress lines, the
// runner's cost samples and resume-journal snapshots.
package periodic

import "time"

// Every calls fn every period (the first call one period from now) until
// stop is called. stop waits for a call in progress to return, so that
// nothing runs fn after it; it must be called once. A period that is not
// positive panics here, in the caller, not in the ticker's goroutine.
func Every(period time.Duration, fn func()) (stop func()) {
	if period <= 0 {
		panic("periodic: a period must be positive")
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
