package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/results"
)

func envRuns(t *testing.T, extra ...string) []Run {
	t.Helper()
	runs, err := ReadFiles(append(globT(t, "testdata/env/*.json"), extra...))
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// The page for a four-database comparison with one failed run. Any change
// of layout shows here: go test -update rewrites it, and a look at the new
// page in a browser (scripts/test.sh also renders it) says whether it is
// right.
func TestHTMLGolden(t *testing.T) {
	page, err := HTML(envRuns(t, "testdata/failed_timescale_r3.json"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html.golden", page)
}

// The page is self-contained: no scripts, no links, no fetches.
func TestHTMLSelfContained(t *testing.T) {
	page, err := HTML(envRuns(t), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	s = strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"<script", "<link", " src=", " href=", "url(", "@import", "<img", "<iframe", "<object", "<embed"} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if n := strings.Count(s, "<svg "); n != 2+8 {
		t.Errorf("%d charts, want 2 bar charts and 8 rate plots", n)
	}
}

// What differs between runs is in the runs table; what they share is in the
// footer, once.
func TestHTMLEnvironment(t *testing.T) {
	page, err := HTML(envRuns(t, "testdata/failed_timescale_r3.json"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	s := html.UnescapeString(string(page))
	main, footer, ok := strings.Cut(s, "<footer>")
	if !ok {
		t.Fatal("no footer")
	}
	_, runsTable, _ := strings.Cut(main, `<table class="runs">`)
	for _, want := range []string{"<th>server</th>", "InfluxDB 1.6.7~rc0", "QuestDB 9.3.4, JDK 24.0.2", "PostgreSQL 15.18 (Debian 15.18-0+deb12u1), no TimescaleDB",
		"CnosDB 2.4.2", "--db-replica=0", "connection refused"} {
		if !strings.Contains(runsTable, want) {
			t.Errorf("runs table lacks %q", want)
		}
	}
	for _, want := range []string{"<dt>CPU</dt><dd>AMD EPYC <span", "<dt>cores</dt><dd>2 <span", "<dt>memory</dt><dd>23.5 GiB <span",
		"Debian GNU/Linux 12 (bookworm)", "<dt>batch size</dt><dd>5000</dd>", "<dt>--db-name</dt><dd>tsload_compare</dd>"} {
		if !strings.Contains(footer, want) {
			t.Errorf("footer lacks %q", want)
		}
	}
	if strings.Contains(footer, "InfluxDB") || strings.Contains(runsTable, "<th>CPU</th>") {
		t.Error("a differing fact in the footer, or a shared one in the runs table")
	}
	// The failed run has no environment: that does not make the machine
	// differ, the footer says it was not recorded.
	if !strings.Contains(footer, `<dt>OS</dt><dd>Debian GNU/Linux 12 (bookworm), Linux 6.18.44-fc-v1045, amd64 <span class="note">(not recorded by 1 of 9 runs)</span></dd>`) {
		t.Error("the failed run's missing environment is not said")
	}
	// The comparison: the failed cell says so instead of a rate.
	if !strings.Contains(s, `<tr class="bad"><td>timescale</td>`) || !strings.Contains(s, "3 (2 of 3 ok)") {
		t.Error("failed timescale cell not marked")
	}
}

// Chart titles say what is drawn: the dataset and the fixed parameters.
func TestChartTitles(t *testing.T) {
	runs := envRuns(t)
	svg, err := BarsSVG(Summarize(runs, []string{"target"}), MetricRows, ChartContext(runs, []string{"target"}))
	if err != nil {
		t.Fatal(err)
	}
	text := svgText(t, svg)
	for _, want := range []string{"rows/s by target (bar: median of 2 runs; whisker: min–max)",
		"cpu-only, scale 100, seed 123, 2016-01-01 00:00 to 04:00 UTC every 10s: 144,000 rows",
		"batch size 5000, workers 2", "loader on AMD EPYC, 2 cores, 23.5 GiB", "rows/s", "target", "57,000"} {
		if !strings.Contains(text, want) {
			t.Errorf("bars chart lacks %q in %q", want, text)
		}
	}
	rate := svgText(t, RateSVG(runs[2], MetricRows, ""))
	for _, want := range []string{"influx: rows/s per reporting period, load_influx (batch size 5000, workers 2)",
		"influx_r1, 16,514 rows/s overall, 144,000 rows in 8.7 s", "seconds since the start of the load", "per period", "overall"} {
		if !strings.Contains(rate, want) {
			t.Errorf("rate plot lacks %q in %q", want, rate)
		}
	}
}

// svgText is the text of an SVG's <text> elements joined by " | " (wrapped
// title lines joined by a space).
func svgText(t *testing.T, svg string) string {
	t.Helper()
	var parts []string
	dec := xml.NewDecoder(strings.NewReader(svg))
	prevClass := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "text" {
			class := attr(se, "class")
			var s string
			if err := dec.DecodeElement(&s, &se); err != nil {
				t.Fatal(err)
			}
			if (class == "title" || class == "subtitle") && class == prevClass && len(parts) > 0 {
				parts[len(parts)-1] += " " + s
			} else {
				parts = append(parts, s)
			}
			prevClass = class
		}
	}
	return strings.Join(parts, " | ")
}

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func fattr(t *testing.T, se xml.StartElement, name string) float64 {
	v := attr(se, name)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", se.Name.Local, name, v, err)
	}
	return f
}

var rotateRE = regexp.MustCompile(`^rotate\((-?[0-9.]+) (-?[0-9.]+) (-?[0-9.]+)\)$`)

// checkInside fails when any element of svg reaches outside its viewBox:
// shapes by their coordinates, text by its estimated extent (fontWidth,
// the same estimate the layout uses, with the text's anchor and rotation).
func checkInside(t *testing.T, name, svg string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var w, h float64
	out := func(what string, x, y float64) {
		if x < -0.5 || y < -0.5 || x > w+0.5 || y > h+0.5 {
			t.Errorf("%s: %s reaches (%.1f, %.1f), outside 0..%.0f x 0..%.0f", name, what, x, y, w, h)
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "svg":
			if _, err := fmt.Sscanf(attr(se, "viewBox"), "0 0 %g %g", &w, &h); err != nil || w <= 0 || h <= 0 {
				t.Fatalf("%s: viewBox %q", name, attr(se, "viewBox"))
			}
		case "rect":
			x, y, rw, rh := fattr(t, se, "x"), fattr(t, se, "y"), fattr(t, se, "width"), fattr(t, se, "height")
			if rw < 0 || rh < 0 {
				t.Errorf("%s: rect of negative size %v x %v", name, rw, rh)
			}
			out("rect", x, y)
			out("rect", x+rw, y+rh)
		case "line":
			out("line", fattr(t, se, "x1"), fattr(t, se, "y1"))
			out("line", fattr(t, se, "x2"), fattr(t, se, "y2"))
		case "circle":
			r := fattr(t, se, "r")
			out("circle", fattr(t, se, "cx")-r, fattr(t, se, "cy")-r)
			out("circle", fattr(t, se, "cx")+r, fattr(t, se, "cy")+r)
		case "polyline":
			for _, p := range strings.Fields(attr(se, "points")) {
				var x, y float64
				if _, err := fmt.Sscanf(p, "%g,%g", &x, &y); err != nil {
					t.Fatalf("%s: points %q", name, p)
				}
				out("polyline", x, y)
			}
		case "text":
			x, y, size := fattr(t, se, "x"), fattr(t, se, "y"), fattr(t, se, "font-size")
			var s string
			if err := dec.DecodeElement(&s, &se); err != nil {
				t.Fatal(err)
			}
			tw := fontWidth(s, size, attr(se, "font-weight") == "bold")
			angle := 0.0
			if tr := attr(se, "transform"); tr != "" {
				m := rotateRE.FindStringSubmatch(tr)
				if m == nil {
					t.Fatalf("%s: transform %q", name, tr)
				}
				angle, _ = strconv.ParseFloat(m[1], 64)
			}
			a := angle * math.Pi / 180
			dx, dy := math.Cos(a), math.Sin(a)  // along the baseline
			ux, uy := math.Sin(a), -math.Cos(a) // up, towards the ascenders
			var from float64
			switch attr(se, "text-anchor") {
			case "middle":
				from = -tw / 2
			case "end":
				from = -tw
			}
			for _, along := range []float64{from, from + tw} {
				for _, up := range []float64{-0.25 * size, 0.85 * size} {
					out(fmt.Sprintf("text %q", s), x+along*dx+up*ux, y+along*dy+up*uy)
				}
			}
		}
	}
}

// Nothing of a chart is cut: long titles wrap, long x labels turn, tick
// labels get their margin, the highest whisker and its label stay inside.
func TestChartsInsideTheirBox(t *testing.T) {
	env := envRuns(t, "testdata/failed_timescale_r3.json")
	matrix, err := ReadFiles(globT(t, "testdata/matrix/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	compare, err := ReadFiles(globT(t, "testdata/compare/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Long target names and many cells: the x labels must turn.
	var long []Run
	for i, r := range env[:8] {
		c := *r.Results
		c.Target = fmt.Sprintf("a-rather-long-target-name-%d-%s", i, r.Target)
		c.RowsPerSec *= 1e4 // seven-digit tick labels
		long = append(long, Run{Path: r.Path, Results: &c})
	}
	tables := map[string]*Table{
		"env by target":           Summarize(env, []string{"target"}),
		"matrix by batch,workers": Summarize(matrix, []string{"batch_size", "workers"}),
		"matrix by workers":       Summarize(matrix, []string{"workers", "batch_size"}),
		"compare by target":       Summarize(compare, []string{"target"}),
		"long names":              Summarize(long, []string{"target", "workers"}),
	}
	for name, tab := range tables {
		var runs []Run
		for _, c := range tab.Cells {
			runs = append(runs, c.Runs...)
		}
		for _, m := range []Metric{MetricRows, MetricMetrics} {
			svg, err := BarsSVG(tab, m, ChartContext(runs, tab.Keys))
			if err != nil {
				t.Fatal(err)
			}
			checkInside(t, name+" "+string(m), svg)
		}
	}
	for _, r := range append(append(env, matrix...), compare...) {
		checkInside(t, r.Path, RateSVG(r, MetricRows, ChartContext([]Run{r}, nil)))
	}
	// A run without periods, and one with a non-finite period, still draw.
	bare := &results.Results{Loader: "load_x", Target: "x", Status: results.StatusOK, Rows: 10, RowsPerSec: 5, Seconds: 2, BatchSize: 1, Workers: 1,
		Start: time.Unix(0, 0), Periods: []results.Period{{At: 1, Seconds: 1, RowsPerSec: math.Inf(1)}}}
	svg := RateSVG(Run{Path: "bare.json", Results: bare}, MetricRows, "")
	checkInside(t, "bare", svg)
	if !strings.Contains(svg, "no reporting periods recorded") {
		t.Error("a run without usable periods does not say so")
	}
}

// The golden SVG of the comparison bars: a change to the layout is seen in
// review (go test -update rewrites testdata/bars.golden.svg).
func TestBarsSVGGolden(t *testing.T) {
	runs := envRuns(t)
	svg, err := BarsSVG(Summarize(runs, []string{"target"}), MetricRows, ChartContext(runs, []string{"target"}))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "bars.svg.golden", []byte(svg))
	rate := RateSVG(runs[3], MetricRows, "")
	golden(t, "rate.svg.golden", []byte(rate))
}

func TestRunHTMLWritesFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sub", "report.html")
	var names bytes.Buffer
	if err := RunHTML(HTMLConfig{Files: globT(t, "testdata/env/*.json"), OutFile: out, Out: &names}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || strings.TrimSpace(names.String()) != out {
		t.Fatalf("page %d bytes, %v; printed %q", len(b), err, names.String())
	}
	if err := RunHTML(HTMLConfig{Files: []string{"testdata/nope.json"}, OutFile: out}); err == nil {
		t.Error("missing results file accepted")
	}
}
