package summary

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/results"
)

// PeriodPace is the paced part of a period's progress line ("" when the
// run is not paced).
func PeriodPace(pp *results.PeriodPace) string {
	if pp == nil {
		return ""
	}
	return fmt.Sprintf(" | offered %s rows/s, backlog %s rows, lag %s, p99 from due %.1f ms",
		Rate(pp.OfferedRowsPerSec), Count(pp.BacklogRows), seconds(pp.LagSeconds).Round(time.Millisecond), pp.LatencyFromDue.P99)
}

// Pace writes a paced run's summary lines (nothing when it was not paced).
func Pace(w io.Writer, pc *results.Pace) {
	if pc == nil {
		return
	}
	l := pc.LatencyFromDue
	fmt.Fprintf(w, "paced: offered %s rows/s, achieved %s rows/s; max backlog %s rows, max lag %s\n",
		Rate(pc.OfferedRowsPerSec), Rate(pc.AchievedRowsPerSec), Count(pc.MaxBacklogRows), seconds(pc.MaxLagSeconds).Round(time.Millisecond))
	fmt.Fprintf(w, "latency from due ms (what a producer sees; batch latency above is from the send): mean %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f\n", l.Mean, l.P50, l.P90, l.P99, l.Max)
	sloLine(w, pc)
	if len(pc.Steps) == 0 {
		return
	}
	var b strings.Builder
	for i, st := range pc.Steps {
		if i > 0 {
			b.WriteString(" | ")
		}
		verdict := "ok"
		switch {
		case !st.Complete:
			verdict = "partial"
		case !st.Bounded:
			verdict = "backlog " + Count(st.BacklogRows)
		case !st.OK:
			verdict = "over SLO"
		}
		fmt.Fprintf(&b, "%s: p99 %.1f ms %s", Rate(st.RowsPerSec), st.LatencyFromDue.P99, verdict)
	}
	fmt.Fprintf(w, "steps (rows/s): %s\n", b.String())
	for _, st := range pc.Steps {
		if pc.Halted && st.Complete && !st.Bounded {
			fmt.Fprintf(w, "staircase stopped after %s rows/s: its backlog (%s rows) was not bounded\n", Rate(st.RowsPerSec), Count(st.BacklogRows))
			break
		}
	}
	slo := "a bounded backlog"
	if pc.SLOQuantile > 0 {
		slo = fmt.Sprintf("p%g from due < %g ms and a bounded backlog", pc.SLOQuantile, pc.SLOMillis)
	}
	complete := false
	for _, st := range pc.Steps {
		complete = complete || st.Complete
	}
	switch {
	case pc.SustainableRowsPerSec > 0 && pc.SustainableAtLeast:
		fmt.Fprintf(w, "sustainable rate: at least %s rows/s (the highest step that kept %s; %s before a step failed: the server's limit was not reached)\n",
			Rate(pc.SustainableRowsPerSec), slo, endedHow(pc))
	case pc.SustainableRowsPerSec > 0:
		fmt.Fprintf(w, "sustainable rate: %s rows/s (the highest step that kept %s)\n", Rate(pc.SustainableRowsPerSec), slo)
	case !complete:
		fmt.Fprintf(w, "sustainable rate: not measured (%s during the first step: give more input, --loop, or shorter steps)\n", endedHow(pc))
	default:
		fmt.Fprintf(w, "sustainable rate: none (no step kept %s)\n", slo)
	}
	if n := len(pc.FailedBelow); n > 0 {
		rates := make([]string, n)
		for i, v := range pc.FailedBelow {
			rates[i] = Rate(v)
		}
		fmt.Fprintf(w, "but a lower step failed: %s rows/s (a passing stall, or a rate near the limit: run the staircase again before quoting the sustainable rate)\n",
			strings.Join(rates, ", "))
	}
}

// endedHow says what ended a staircase (results.Pace.EndedBy).
func endedHow(pc *results.Pace) string {
	switch pc.EndedBy {
	case "max":
		return "the step at MAX (" + Rate(pc.StepsMax) + " rows/s) ended the staircase"
	case "input":
		return "the input ended"
	case "duration":
		return "--duration ended the run"
	case "backlog":
		return "a backlog ended the staircase"
	}
	return "the run stopped"
}

// sloLine writes whether a constant rate's run kept its SLO.
func sloLine(w io.Writer, pc *results.Pace) {
	if pc.SLOMet == nil {
		return
	}
	verdict := "met"
	if !*pc.SLOMet {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "SLO p%g from due < %g ms: %s (p%g from due %.1f ms over the run)\n", pc.SLOQuantile, pc.SLOMillis, verdict, pc.SLOQuantile, pc.SLOQuantileMillis)
}
