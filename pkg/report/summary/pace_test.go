package summary

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

// TestPaceStaircase: the summary of a judged staircase says its
// sustainable rate, whether it is a lower bound and what ended it, and the
// lower steps that failed.
func TestPaceStaircase(t *testing.T) {
	ok := results.RateStep{Complete: true, Bounded: true, OK: true, Batches: 1}
	over := results.RateStep{Complete: true, Bounded: true, Batches: 1}
	partial := results.RateStep{Bounded: true, Batches: 1}
	at := func(st results.RateStep, r float64) results.RateStep { st.RowsPerSec = r; return st }
	for _, tc := range []struct {
		name string
		pc   results.Pace
		says []string
	}{
		{"a failed step above", results.Pace{Steps: []results.RateStep{at(ok, 140e3), at(over, 160e3), at(ok, 180e3), at(over, 200e3)}, EndedBy: "input",
			SustainableRowsPerSec: 180e3, FailedBelow: []float64{160e3}},
			[]string{"sustainable rate: 180,000 rows/s (the highest step", "but a lower step failed: 160,000 rows/s"}},
		{"input ended", results.Pace{Steps: []results.RateStep{at(ok, 20e3), at(ok, 40e3), at(partial, 60e3)}, EndedBy: "input",
			SustainableRowsPerSec: 40e3, SustainableAtLeast: true},
			[]string{"sustainable rate: at least 40,000 rows/s", "the input ended before a step failed"}},
		{"MAX", results.Pace{Steps: []results.RateStep{at(ok, 200e3), at(over, 220e3), at(ok, 240e3)}, EndedBy: "max", StepsMax: 240e3,
			SustainableRowsPerSec: 240e3, SustainableAtLeast: true, FailedBelow: []float64{220e3}},
			[]string{"sustainable rate: at least 240,000 rows/s", "the step at MAX (240,000 rows/s) ended the staircase", "but a lower step failed: 220,000 rows/s"}},
		{"none", results.Pace{Steps: []results.RateStep{at(over, 20e3), at(partial, 40e3)}, EndedBy: "input"},
			[]string{"sustainable rate: none (no step kept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			Pace(&out, &tc.pc)
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("no %q in:\n%s", s, out.String())
				}
			}
		})
	}
}

func ExampleCount() {
	fmt.Println(Count(-1234567), Rate(999.5))
	// Output: -1,234,567 1,000
}
