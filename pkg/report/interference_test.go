package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

// withInterference gives r the interference measured beside it.
func withInterference(r Run, cores float64) Run {
	in := &results.Interference{CPUs: 2, Seconds: r.Seconds, Cores: cores, ThresholdCores: 0.5}
	if cores > 0.5 {
		in.Disturbed, in.Reason = true, "interference > 0.50"
	}
	r.Cost = &results.Cost{Interference: in}
	return r
}

// A disturbed run is never silently one of the runs a median is taken
// over: its row says how many were disturbed, in Markdown, CSV and HTML,
// and a note says the figures are not the database's alone.
func TestTableMarksDisturbed(t *testing.T) {
	runs := []Run{
		withInterference(fakeRun("a1", 5000, 2, 100000), 0.05),
		withInterference(fakeRun("a2", 5000, 2, 60000), 1.02),
		withInterference(fakeRun("a3", 5000, 2, 101000), 0.04),
		withInterference(fakeRun("b1", 5000, 4, 150000), 0.1),
		withInterference(fakeRun("b2", 5000, 4, 155000), 0.1),
	}
	tab := Summarize(runs, []string{"workers"})
	var md strings.Builder
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| interference cores max | disturbed runs |", "| 1.02 | DISTURBED 1 of 3 |", "| 0.10 | 0 of 2 |",
		"- 2: 1 of 3 runs disturbed (other work on the machine, up to 1.02 cores)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	// 60,000-101,000 and 150,000-155,000 do not overlap: no such note.
	if strings.Contains(md.String(), "overlap") {
		t.Errorf("an overlap note for ranges apart:\n%s", md.String())
	}
	var csv bytes.Buffer
	if err := tab.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), ",interference_cores_max,disturbed_runs\n") || !strings.Contains(csv.String(), ",1.02,1\n") {
		t.Errorf("CSV lacks the interference columns:\n%s", csv.String())
	}
	page, err := HTML(runs, []string{"workers"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<td class=\"num\">DISTURBED 1 of 3</td>", "<li>2: 1 of 3 runs disturbed"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// Two rows whose runs' rates overlap are said not to differ; runs without
// the measurement say so rather than count as quiet.
func TestTableOverlapAndUnmeasured(t *testing.T) {
	runs := []Run{
		withInterference(fakeRun("a1", 5000, 2, 100000), 0.05),
		withInterference(fakeRun("a2", 5000, 2, 120000), 0.05),
		withInterference(fakeRun("b1", 5000, 4, 110000), 0.05),
		fakeRun("b2", 5000, 4, 130000),
	}
	tab := Summarize(runs, []string{"workers"})
	var md strings.Builder
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rows/s of 2 (100,000–120,000) and 4 (110,000–130,000) overlap: the difference between them is not established",
		"| 0 of 2 (1 measured) |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
