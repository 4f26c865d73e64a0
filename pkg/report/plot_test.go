package report

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

// checkPNG decodes a PNG and demands a real picture: a sensible size and
// more than a handful of colours (axes, text, lines, anti-aliasing).
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, format, err := image.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if format != "png" {
		t.Errorf("%s: format %s", path, format)
	}
	b := img.Bounds()
	if b.Dx() < 400 || b.Dy() < 200 {
		t.Errorf("%s: %dx%d, too small", path, b.Dx(), b.Dy())
	}
	colours := map[[4]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("%s: only %d distinct colours", path, len(colours))
	}
}

// checkSVG parses an SVG as XML and counts its path elements.
func checkSVG(t *testing.T, path string, minPaths int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	paths, root := 0, ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "path" {
				paths++
			}
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q", path, root)
	}
	if paths < minPaths {
		t.Errorf("%s: %d path elements, want at least %d", path, paths, minPaths)
	}
}

func TestRunPlot(t *testing.T) {
	dir := t.TempDir()
	files := []string{"testdata/matrix/b1000_w2_r1.json", "testdata/matrix/b3000_w4_r2.json", "testdata/compare/cnosdb.json"}
	var out bytes.Buffer
	if err := RunPlot(PlotConfig{Files: files, OutDir: dir, Out: &out}); err != nil {
		t.Fatal(err)
	}
	listed := strings.Fields(out.String())
	if len(listed) != 2*len(files) {
		t.Fatalf("listed %v", listed)
	}
	for _, f := range listed {
		switch filepath.Ext(f) {
		case ".png":
			checkPNG(t, f)
		case ".svg":
			checkSVG(t, f, 10)
		default:
			t.Errorf("unexpected file %s", f)
		}
	}
	if want := filepath.Join(dir, "b1000_w2_r1.rate.png"); listed[0] != want {
		t.Errorf("first file %s, want %s", listed[0], want)
	}
}

// The stalled period of b1000_w2_r1 (0 rows) is on the plot at y=0, and the
// y axis starts at 0 so the dip is visible.
func TestRatePlotShowsStall(t *testing.T) {
	runs, err := ReadFiles([]string{"testdata/matrix/b1000_w2_r1.json"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := RatePlot(runs[0], MetricRows)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 {
		t.Errorf("y axis from %v, want 0", p.Y.Min)
	}
	stalls := 0
	for _, per := range runs[0].Periods {
		if per.Rows == 0 {
			stalls++
		}
	}
	if stalls != 1 {
		t.Fatalf("fixture has %d stalled periods, want 1", stalls)
	}
	if !strings.Contains(p.Title.Text, "load_influx") || !strings.Contains(p.Title.Text, "batch size 1000") {
		t.Errorf("title %q", p.Title.Text)
	}
	failed, _ := ReadFiles([]string{"testdata/matrix/b3000_w4_r2.json"})
	p, err = RatePlot(failed[0], MetricMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Title.Text, "FAILED: ") || !strings.Contains(p.Title.Text, "metrics/s") {
		t.Errorf("failed run title %q", p.Title.Text)
	}
}

func TestRunBars(t *testing.T) {
	dir := t.TempDir()
	matrix := globT(t, "testdata/matrix/*.json")
	compare := globT(t, "testdata/compare/*.json")
	tests := []struct {
		cfg  BarsConfig
		want []string
	}{
		{BarsConfig{Files: matrix}, []string{"bars_rows.png", "bars_rows.svg"}},
		{BarsConfig{Files: matrix, Metric: MetricMetrics, Name: "m"}, []string{"m.png", "m.svg"}},
		{BarsConfig{Files: compare, Group: []string{"target"}, Name: "compare"}, []string{"compare.png", "compare.svg"}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		tt.cfg.OutDir, tt.cfg.Out = dir, &out
		if err := RunBars(tt.cfg); err != nil {
			t.Fatal(err)
		}
		got := strings.Fields(out.String())
		sort.Strings(got)
		if len(got) != len(tt.want) {
			t.Fatalf("wrote %v, want %v", got, tt.want)
		}
		for i, f := range got {
			if f != filepath.Join(dir, tt.want[i]) {
				t.Errorf("wrote %s, want %s", f, tt.want[i])
			}
			if strings.HasSuffix(f, ".png") {
				checkPNG(t, f)
			} else {
				checkSVG(t, f, 4)
			}
		}
	}
}

// A failed cell has no bar: its value is absent and its status labels it.
func TestBarsPlotFailedCell(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/matrix/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := BarsPlot(Summarize(runs, []string{"batch_size", "workers"}), MetricRows)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 {
		t.Errorf("y from %v", p.Y.Min)
	}
	// The highest ok run is 430,000 (1000x4, the top of its whisker); the
	// failed 3000x4 cell's 520,000 repeat must not set the scale.
	if want := 430000 * barsHeadroom(2, strings.Count(p.Title.Text, "\n")+1); math.Abs(p.Y.Max-want) > 1 {
		t.Errorf("y max %v, want %v: a failed cell was drawn, or the whiskers not", p.Y.Max, want)
	}
	if !strings.Contains(p.Title.Text, "whisker: min–max") || !strings.Contains(p.Title.Text, "median of 3 runs") {
		t.Errorf("title %q", p.Title.Text)
	}
	// The outer bars are inside the x range (half a slot each side).
	if p.X.Min != -0.5 || p.X.Max != 1.5 {
		t.Errorf("x range %v..%v, want -0.5..1.5 for 2 batch sizes", p.X.Min, p.X.Max)
	}
	if _, err := BarsPlot(&Table{Keys: []string{"target"}}, MetricRows); err == nil {
		t.Error("empty table plotted")
	}
}

// TestPlotPeriodsShortLast: a last period of a tenth of a second (the run
// ended just after it began) is drawn with the one before it, at the rate
// of both together, instead of as a spike; a full last period is kept.
func TestPlotPeriodsShortLast(t *testing.T) {
	ps := []results.Period{
		{At: 1, Seconds: 1, Rows: 1000, Metrics: 10000, RowsPerSec: 1000, TotalRows: 1000},
		{At: 2, Seconds: 1, Rows: 1000, Metrics: 10000, RowsPerSec: 1000, TotalRows: 2000},
		{At: 2.1, Seconds: 0.1, Rows: 650, Metrics: 6500, RowsPerSec: 6500, TotalRows: 2650},
	}
	got := plotPeriods(ps)
	if len(got) != 2 || got[1].At != 2.1 || got[1].Rows != 1650 || math.Abs(got[1].RowsPerSec-1500) > 1e-9 || got[1].TotalRows != 2650 || got[0] != ps[0] {
		t.Fatalf("%+v", got)
	}
	if full := plotPeriods(ps[:2]); len(full) != 2 || full[1] != ps[1] {
		t.Fatalf("full periods changed: %+v", full)
	}
}

// The page's SVG charts (rate, server) merge a short last period too; the
// server's CPU of both periods adds up, its RSS is the last one's.
func TestSVGShortLast(t *testing.T) {
	srv := func(cpu float64, rss int64) *results.PeriodServer {
		return &results.PeriodServer{CPUSeconds: cpu, RSSBytes: rss}
	}
	r := Run{Path: "r.json", Results: &results.Results{Target: "x", Status: results.StatusOK, Rows: 2650, Seconds: 2.1, RowsPerSec: 1262,
		Periods: []results.Period{
			{At: 1, Seconds: 1, Rows: 1000, RowsPerSec: 1000, TotalRows: 1000, Server: srv(1, 100e6)},
			{At: 2, Seconds: 1, Rows: 1000, RowsPerSec: 1000, TotalRows: 2000, Server: srv(1, 100e6)},
			{At: 2.1, Seconds: 0.1, Rows: 650, RowsPerSec: 6500, TotalRows: 2650, Server: srv(0.5, 120e6)},
		}}}
	if got := plotPeriods(r.Periods)[1].Server; got.CPUSeconds != 1.5 || got.RSSBytes != 120e6 {
		t.Errorf("merged server %+v", got)
	}
	two := Run{Path: r.Path, Results: &results.Results{}}
	*two.Results = *r.Results
	two.Periods = r.Periods[:2] // as many points as two periods
	if n, want := strings.Count(RateSVG(r, MetricRows, ""), "<circle"), strings.Count(RateSVG(two, MetricRows, ""), "<circle"); n != want {
		t.Errorf("rate chart: %d circles, want %d", n, want)
	}
	if n, want := strings.Count(ServerSVG(r), "<circle"), strings.Count(ServerSVG(two), "<circle"); n != want {
		t.Errorf("server chart: %d circles, want %d", n, want)
	}
}
