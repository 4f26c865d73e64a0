package pace

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/results"
)

func TestSchedule(t *testing.T) {
	flat := newSchedule(Pace{Rate: 2000})
	stairs := newSchedule(Pace{Steps: Steps{Start: 1000, Step: 1000, Every: time.Second, Max: 3000}})
	open := newSchedule(Pace{Steps: Steps{Start: 1000, Step: 500, Every: time.Second}})
	for _, tc := range []struct {
		name string
		s    schedule
		t    time.Duration
		rows float64
	}{
		{"flat 0", flat, 0, 0},
		{"flat 1.5s", flat, 1500 * time.Millisecond, 3000},
		{"stairs 1s", stairs, time.Second, 1000},
		{"stairs 1.5s", stairs, 1500 * time.Millisecond, 2000},
		{"stairs 2s", stairs, 2 * time.Second, 3000},
		{"stairs end", stairs, 3 * time.Second, 6000},
		{"stairs past the end", stairs, 5 * time.Second, 6000},
		{"open 3.5s", open, 3500 * time.Millisecond, 1000 + 1500 + 2000 + 0.5*2500},
	} {
		if got := tc.s.rows(tc.t); math.Abs(got-tc.rows) > 1e-6 {
			t.Errorf("%s: rows(%s) = %v, want %v", tc.name, tc.t, got, tc.rows)
		}
		if tc.t > 0 && tc.t <= 3*time.Second {
			if got := tc.s.at(tc.rows); (got - tc.t).Abs() > time.Microsecond {
				t.Errorf("%s: at(%v) = %s, want %s", tc.name, tc.rows, got, tc.t)
			}
		}
	}
	if stairs.end() != 3*time.Second || open.end() != 0 || flat.end() != 0 {
		t.Errorf("ends %s %s %s", stairs.end(), open.end(), flat.end())
	}
	if stairs.at(6001) <= stairs.end() {
		t.Errorf("a row past the staircase is due at %s, before its end", stairs.at(6001))
	}
	if r := []float64{stairs.rateOf(0), stairs.rateOf(2), stairs.rateOf(7)}; r[0] != 1000 || r[1] != 3000 || r[2] != 3000 {
		t.Errorf("rates %v", r)
	}
	// at inverts rows everywhere (rounding at step edges included).
	for n := 1.0; n < 40000; n = n*1.37 + 1 {
		for _, s := range []schedule{flat, stairs, open} {
			if s.capped && n > 6000 {
				continue
			}
			if got := s.rows(s.at(n)); math.Abs(got-n) > 0.01 {
				t.Fatalf("%+v: rows(at(%v)) = %v", s, n, got)
			}
		}
	}
}

func TestPaceValidate(t *testing.T) {
	for _, tc := range []struct {
		p    Pace
		want string
	}{
		{Pace{Rate: -1}, "rate"},
		{Pace{Rate: math.Inf(1)}, "rate"},
		{Pace{Rate: 10, Steps: Steps{Start: 1, Step: 1, Every: time.Second}}, "exclusive"},
		{Pace{Steps: Steps{Start: 10, Every: time.Second}}, "steps of 0"},
		{Pace{Steps: Steps{Start: 10, Step: 1}}, "every"},
		{Pace{Steps: Steps{Start: 10, Step: 1, Every: time.Millisecond}}, "at least 10ms"},
		{Pace{Steps: Steps{Start: 10, Step: 1, Every: time.Second, Max: 5}}, "at least the start"},
		{Pace{Rate: 10, SLO: SLO{Quantile: 100, Bound: time.Second}}, "quantile"},
		{Pace{Rate: 10, SLO: SLO{Quantile: 99}}, "bound"},
	} {
		if err := tc.p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.p, err, tc.want)
		}
	}
	if err := (Pace{Steps: Steps{Start: 10, Step: 1, Every: time.Second}, SLO: SLO{Quantile: 99.9, Bound: time.Millisecond}}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestJudgeStaircase: the sustainable rate is a lower bound unless a step
// above it ran to its end (and failed), and failed steps below it are
// named (issue 43.3: 160k failed, 180k passed, 200k failed).
func TestJudgeStaircase(t *testing.T) {
	ok := results.RateStep{Complete: true, Bounded: true, OK: true, Batches: 1}
	over := results.RateStep{Complete: true, Bounded: true, Batches: 1}
	partial := results.RateStep{Bounded: true, Batches: 1}
	at := func(st results.RateStep, r float64) results.RateStep { st.RowsPerSec = r; return st }
	for _, tc := range []struct {
		name        string
		steps       []results.RateStep
		endedBy     string
		sustainable float64
		atLeast     bool
		failedBelow []float64
	}{
		{"a failed step above", []results.RateStep{at(ok, 140e3), at(over, 160e3), at(ok, 180e3), at(over, 200e3)}, "input", 180e3, false, []float64{160e3}},
		{"input ended", []results.RateStep{at(ok, 20e3), at(ok, 40e3), at(partial, 60e3)}, "input", 40e3, true, nil},
		{"MAX", []results.RateStep{at(ok, 200e3), at(over, 220e3), at(ok, 240e3)}, "max", 240e3, true, []float64{220e3}},
		{"none", []results.RateStep{at(over, 20e3), at(partial, 40e3)}, "input", 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := &results.Pace{Steps: tc.steps, EndedBy: tc.endedBy, StepsMax: 240e3}
			for _, st := range tc.steps {
				if st.OK {
					pc.SustainableRowsPerSec = st.RowsPerSec
				}
			}
			judgeStaircase(pc)
			if pc.SustainableRowsPerSec != tc.sustainable || pc.SustainableAtLeast != tc.atLeast || fmt.Sprint(pc.FailedBelow) != fmt.Sprint(tc.failedBelow) {
				t.Errorf("sustainable %v at least %v failed below %v", pc.SustainableRowsPerSec, pc.SustainableAtLeast, pc.FailedBelow)
			}
		})
	}
}
