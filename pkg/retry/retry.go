// Package retry is the one back-off loop of tsload: the runner's batch
// re-sends, its row count, and the targets' own reconnects all wait the same
// way. A wait starts at Min and doubles up to Max; each wait is drawn at
// random from [d/2, d] so that workers that failed together do not retry
// together; an error may ask for a longer wait (a server's Retry-After). No
// retry is made whose wait would end past the Budget.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// Policy is how an operation is retried. The zero Policy retries
// load.IsRetryable errors with the default waits and no budget but the
// context's.
type Policy struct {
	// Min is the first wait (default 100ms); Max the longest (default 5s).
	Min, Max time.Duration
	// Budget bounds the time from the first attempt to the last (0: no
	// bound but the context).
	Budget time.Duration
	// Retryable reports whether an error may be retried (default
	// load.IsRetryable). Other errors are returned at once, unchanged.
	Retryable func(error) bool
	// Floor is the shortest wait err asks for (default load.RetryDelay, the
	// server's Retry-After).
	Floor func(err error) time.Duration
	// OnRetry, when set, is called before each wait: retry counts from 1.
	OnRetry func(retry int, wait time.Duration, err error)
}

// Default waits: 100ms doubling to 5s.
const (
	DefaultMin = 100 * time.Millisecond
	DefaultMax = 5 * time.Second
)

// GiveUpError is returned when a retryable error persisted: the budget ran
// out, or the context ended while waiting (Stopped). It wraps the last error.
type GiveUpError struct {
	Err     error
	Retries int           // retries made (attempts - 1)
	Elapsed time.Duration // since the first attempt
	Stopped bool          // the context ended
}

func (e *GiveUpError) Error() string {
	if e.Stopped {
		return fmt.Sprintf("stopped while retrying (%d retries): %v", e.Retries, e.Err)
	}
	return fmt.Sprintf("giving up after %d retries in %s: %v", e.Retries, e.Elapsed.Round(time.Millisecond), e.Err)
}

func (e *GiveUpError) Unwrap() error { return e.Err }

// Do calls op until it returns nil or an error that is not retryable, or
// until the next wait would pass the budget or the context ends, in which
// case it returns a *GiveUpError. op is called at least once.
func (p Policy) Do(ctx context.Context, op func(ctx context.Context) error) error {
	p.defaults()
	first := time.Now()
	delay := p.Min
	for retries := 0; ; retries++ {
		err := op(ctx)
		if err == nil || !p.Retryable(err) {
			return err
		}
		if ctx.Err() != nil {
			return &GiveUpError{Err: err, Retries: retries, Elapsed: time.Since(first), Stopped: true}
		}
		floor := p.Floor(err)
		if p.Budget > 0 && time.Since(first)+max(delay, floor) > p.Budget {
			return &GiveUpError{Err: err, Retries: retries, Elapsed: time.Since(first)}
		}
		wait := max(Jitter(delay), floor)
		if p.OnRetry != nil {
			p.OnRetry(retries+1, wait, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return &GiveUpError{Err: err, Retries: retries, Elapsed: time.Since(first), Stopped: true}
		}
		delay = min(2*delay, p.Max)
	}
}

func (p *Policy) defaults() {
	if p.Min <= 0 {
		p.Min = DefaultMin
	}
	if p.Max < p.Min {
		p.Max = max(DefaultMax, p.Min)
	}
	if p.Retryable == nil {
		p.Retryable = load.IsRetryable
	}
	if p.Floor == nil {
		p.Floor = load.RetryDelay
	}
}

// Jitter returns a random wait in [d/2, d].
func Jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}
