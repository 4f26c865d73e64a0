package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pace fixtures are real runs: load_influx --rate 20k (40,000 rows)
// and load_questdb --rate-steps 10k,10k,1s,40k --slo p99=100ms on this
// project's loaded test machine (20k and up missed the SLO there).

func TestPacePlots(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	files := []string{"testdata/pace/questdb_steps.json", "testdata/compare/questdb.json"}
	if err := RunPlot(PlotConfig{Files: files, OutDir: dir, Out: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"questdb_steps.rate.png", "questdb_steps.pace.png", "questdb_steps.pace.svg", "questdb_steps.latency.png", "questdb_steps.latency.svg", "questdb.rate.svg"} {
		if st, err := os.Stat(filepath.Join(dir, want)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written (%v); wrote:\n%s", want, err, out.String())
		}
	}
	if strings.Contains(out.String(), "questdb.pace") {
		t.Errorf("pace plots of a closed-loop run:\n%s", out.String())
	}
}

func TestPaceSVGs(t *testing.T) {
	runs, err := ReadFiles([]string{"testdata/pace/questdb_steps.json"})
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	svgs := PaceSVGs(r)
	if len(svgs) != 2 {
		t.Fatalf("%d charts", len(svgs))
	}
	rates, lats := paceSeries(r)
	for i, s := range rates {
		if len(s.pts) < 10 {
			t.Errorf("rate series %d: %d points", i, len(s.pts))
		}
	}
	// The offered line is the staircase: 10k in the first second, 40k in the last.
	top := 0.0
	for _, p := range rates[0].pts {
		top = max(top, p.Y)
	}
	if o := rates[0].pts; math.Abs(o[0].Y-10000) > 1 || math.Abs(top-40000) > 1 {
		t.Errorf("offered %v", o)
	}
	for _, want := range []string{"offered rows/s", "achieved rows/s", "sustainable 10,000 rows/s"} {
		if !strings.Contains(svgs[0], want) {
			t.Errorf("rates chart lacks %q", want)
		}
	}
	for _, want := range []string{"p99 from due", "p50 from due", "p99 from send", "stroke-dasharray"} {
		if !strings.Contains(svgs[1], want) {
			t.Errorf("latency chart lacks %q", want)
		}
	}
	if len(lats[0].pts) == 0 {
		t.Error("no latency points")
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("offered vs achieved rows/s")) || !bytes.Contains(page, []byte("p99 from due ms")) {
		t.Error("the HTML page lacks the pace charts or columns")
	}
}

// A sustainable rate whose staircase ended before a step failed (the
// input, MAX) is a lower bound: "≥" in the table, a number in the CSV.
func TestPaceSustainableAtLeast(t *testing.T) {
	runs, err := ReadFiles([]string{"testdata/pace/questdb_steps.json"})
	if err != nil {
		t.Fatal(err)
	}
	c := Cell{Runs: runs, Status: "ok"}
	if got := c.paceRow(thousands, true)[3]; got != "10,000" {
		t.Errorf("sustainable %q", got)
	}
	runs[0].Pace.SustainableAtLeast = true
	if got := c.paceRow(thousands, true)[3]; got != "≥ 10,000" {
		t.Errorf("lower bound shown %q", got)
	}
	if got := c.paceRow(plain, false)[3]; got != "10000" {
		t.Errorf("CSV %q", got)
	}
	if s := paceSubtitle(runs[0]); !strings.Contains(s, "sustainable at least 10,000 rows/s") {
		t.Errorf("subtitle %q", s)
	}
	// A constant rate's SLO, judged by the loader, is in its chart's title.
	met := false
	runs[0].Pace.Steps, runs[0].Pace.SLOMet, runs[0].Pace.SLOQuantile, runs[0].Pace.SLOMillis, runs[0].Pace.SLOQuantileMillis = nil, &met, 99, 50, 72.04
	if s := paceSubtitle(runs[0]); !strings.Contains(s, "; SLO p99 < 50 ms NOT met (72.0 ms)") {
		t.Errorf("subtitle %q", s)
	}
}
