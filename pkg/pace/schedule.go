package pace

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Pace makes a run open-loop: batches fall due on a fixed schedule of rows
// per second over all workers, whatever the server's answers, instead of
// each worker sending its next batch as soon as the last one is answered.
// The zero Pace is the closed loop.
type Pace struct {
	// Rate is the constant offered rate in rows per second (0: none).
	Rate float64
	// Steps is a staircase of rates (instead of Rate).
	Steps Steps
	// SLO bounds a latency quantile from the due time; with Steps, the
	// highest step that kept it (and a bounded backlog) is the
	// sustainable rate. Zero: steps are judged on their backlog alone.
	SLO SLO
}

// Steps is a staircase: Start rows/s for Every, then Start+Step for Every,
// and so on. With Max (> 0) the staircase ends once the step at Max (the
// last one, capped at Max) has run for Every; without it the rate keeps
// rising until the input ends.
type Steps struct {
	Start, Step float64
	Every       time.Duration
	Max         float64
}

// MinStep is the shortest step of a staircase: each step's end is a timer
// and a sample of the backlog.
const MinStep = 10 * time.Millisecond

// SLO is a bound on one latency quantile, measured from the due time.
type SLO struct {
	Quantile float64 // percent, e.g. 99
	Bound    time.Duration
}

// On reports whether p paces the run.
func (p Pace) On() bool { return p.Rate > 0 || p.Steps.Start > 0 }

// Validate checks p's values; the errors name its fields.
func (p Pace) Validate() error {
	s := p.Steps
	switch {
	case p.Rate < 0 || math.IsNaN(p.Rate) || math.IsInf(p.Rate, 0):
		return fmt.Errorf("pace: rate %v rows/s: want a positive finite number", p.Rate)
	case p.Rate > 0 && s.Start > 0:
		return errors.New("pace: a constant rate and a staircase are exclusive")
	case s.Start < 0 || math.IsNaN(s.Start) || math.IsInf(s.Start, 0):
		return fmt.Errorf("pace: steps start at %v rows/s: want a positive finite number", s.Start)
	case s.Start > 0 && (s.Step <= 0 || math.IsNaN(s.Step) || math.IsInf(s.Step, 0)):
		return fmt.Errorf("pace: steps of %v rows/s: want a positive finite number", s.Step)
	case s.Start > 0 && s.Every < MinStep:
		return fmt.Errorf("pace: steps every %s: want at least %s", s.Every, MinStep)
	case s.Start > 0 && s.Max != 0 && (s.Max < s.Start || math.IsNaN(s.Max) || math.IsInf(s.Max, 0)):
		return fmt.Errorf("pace: steps up to %v rows/s: want at least the start, %v", s.Max, s.Start)
	case p.SLO.Bound < 0 || p.SLO.Quantile < 0 || p.SLO.Quantile >= 100 || (p.SLO.Bound > 0) != (p.SLO.Quantile > 0):
		return fmt.Errorf("pace: SLO p%v < %s: want a quantile in (0, 100) and a positive bound", p.SLO.Quantile, p.SLO.Bound)
	}
	return nil
}

// schedule is the pace as a function of time: rows(t) are the rows due by t
// (since the run's start), at(n) the time by which n rows are due. A batch
// is due once its last row is: at(the rows of every batch up to and
// including it). Rows accrue continuously at the rate in force.
type schedule struct {
	start, step float64 // rows/s of step 0, and the rise per step (0: constant)
	every       time.Duration
	last        int  // the last step (when capped)
	capped      bool // the staircase ends after step last
	max         float64
}

func newSchedule(p Pace) schedule {
	if p.Steps.Start <= 0 {
		return schedule{start: p.Rate}
	}
	s := schedule{start: p.Steps.Start, step: p.Steps.Step, every: p.Steps.Every, max: p.Steps.Max}
	if s.max > 0 {
		s.capped = true
		s.last = int(math.Ceil((s.max - s.start) / s.step))
		if s.last < 0 {
			s.last = 0
		}
	}
	return s
}

// stepped reports whether s is a staircase.
func (s schedule) stepped() bool { return s.every > 0 }

// rateOf is the rate of step k.
func (s schedule) rateOf(k int) float64 {
	if !s.stepped() {
		return s.start
	}
	r := s.start + float64(k)*s.step
	if s.capped && r > s.max {
		r = s.max
	}
	return r
}

// end is when a capped staircase ends (0: never).
func (s schedule) end() time.Duration {
	if !s.capped {
		return 0
	}
	return time.Duration(s.last+1) * s.every
}

// stepAt is the step in force at t.
func (s schedule) stepAt(t time.Duration) int {
	if !s.stepped() || t < 0 {
		return 0
	}
	k := int(t / s.every)
	if s.capped && k > s.last {
		k = s.last
	}
	return k
}

// cum is the rows due by the start of step k (k <= last when capped).
func (s schedule) cum(k int) float64 {
	kf := float64(k)
	return s.every.Seconds() * (kf*s.start + s.step*kf*(kf-1)/2)
}

// rows is the rows due by t.
func (s schedule) rows(t time.Duration) float64 {
	if t <= 0 {
		return 0
	}
	if !s.stepped() {
		return s.start * t.Seconds()
	}
	if e := s.end(); e > 0 && t > e {
		t = e
	}
	k := s.stepAt(t)
	return s.cum(k) + (t-time.Duration(k)*s.every).Seconds()*s.rateOf(k)
}

// at is the time by which n rows are due; past the end of a capped
// staircase it is after end().
func (s schedule) at(n float64) time.Duration {
	if n <= 0 {
		return 0
	}
	if !s.stepped() {
		return seconds(n / s.start)
	}
	// cum(k) = E*(k*start + step*k*(k-1)/2) = n, solved for k, then
	// corrected for rounding.
	e := s.every.Seconds()
	a, b := s.step/2, s.start-s.step/2
	k := int((-b + math.Sqrt(b*b+4*a*n/e)) / (2 * a))
	if s.capped && k > s.last {
		k = s.last
	}
	for k > 0 && s.cum(k) > n {
		k--
	}
	for (!s.capped || k < s.last) && s.cum(k+1) <= n {
		k++
	}
	return time.Duration(k)*s.every + seconds((n-s.cum(k))/s.rateOf(k))
}

// seconds converts float seconds to a Duration, saturating.
func seconds(f float64) time.Duration {
	if f >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(f * float64(time.Second))
}
