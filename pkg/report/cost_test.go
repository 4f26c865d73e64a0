package report

import (
	"strings"
	"testing"
)

// TestHTMLCost: runs with costs give the page the cost columns, a server
// CPU/RSS chart beside each rate chart of a run that measured its server,
// and bars of bytes per row ("not measured" where a run has none).
func TestHTMLCost(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/cost/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{"<th>MB on disk</th>", "<th>bytes/row</th>", "<th>server CPU-s/M rows</th>", "<th>server peak RSS MB</th>",
		"bytes on disk per row by target", "server CPU and memory per reporting period", `class="series cpu"`, `class="series rss"`,
		"not measured: server: remote server 10.0.0.5:8086", "and the server's CPU and memory"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// 3 bar charts, 4 rate charts, 3 server charts (influx's server was remote).
	if n := strings.Count(s, "<svg "); n != 3+4+3 {
		t.Errorf("%d charts, want 10", n)
	}
	// Each server chart follows its run's rate chart.
	if i, j := strings.Index(s, "questdb: rows/s per reporting period"), strings.Index(s, "questdb: server CPU and memory"); i < 0 || j < i {
		t.Errorf("questdb's server chart (at %d) does not follow its rate chart (at %d)", j, i)
	}
	// The bars: cnosdb has no footprint; questdb's includes preallocated
	// pages and is left out, saying so.
	bars := s[strings.Index(s, "bytes on disk per row by target"):]
	bars = bars[:strings.Index(bars, "</svg>")]
	if !strings.Contains(bars, ">left out: includes preallocation</text>") || !strings.Contains(bars, "left out: sizes that include preallocated column pages") {
		t.Errorf("bytes/row bars do not leave out questdb's preallocated size with the reason:\n%s", bars)
	}
	if !strings.Contains(bars, ">not measured</text>") || strings.Count(bars, `class="bar"`) != 2 {
		t.Errorf("bytes/row bars: %d bars, not-measured label %v", strings.Count(bars, `class="bar"`), strings.Contains(bars, "not measured"))
	}
}

// TestServerSVG: CPU as cores busy (CPU seconds over the period), RSS in
// MB; no chart without server figures.
func TestServerSVG(t *testing.T) {
	runs, err := ReadFiles([]string{"testdata/cost/timescale.json", "testdata/cost/influx.json"})
	if err != nil {
		t.Fatal(err)
	}
	svg := ServerSVG(runs[0])
	if !strings.Contains(svg, "9.80 CPU-s in all (9.80 per million rows), peak RSS 400 MB") || strings.Count(svg, "<circle") != 4+4+2 { // two series and their legend swatches
		t.Errorf("timescale server chart:\n%s", svg)
	}
	if ServerSVG(runs[1]) != "" {
		t.Error("a chart for a run whose server was not measured")
	}
}
