package report

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

// TestPNGMargin: a saved chart leaves a blank border on its right, where
// gonum drew the legend's point glyphs and the last x tick label up to
// the edge and cut them (issue 43.16).
func TestPNGMargin(t *testing.T) {
	runs, err := ReadFiles([]string{"testdata/pace/questdb_steps.json"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := RatePlot(runs[0], MetricRows)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "r")
	if _, err := savePlot(p, base); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	px := float64(b.Dx()) / plotWidth.Points() // pixels per point
	edge := int(float64(plotMargin) * px * 0.8)
	if n := inked(img, image.Rect(b.Max.X-edge, b.Min.Y, b.Max.X, b.Max.Y)); n > 0 {
		t.Errorf("%d pixels drawn in the right margin (%d px)", n, edge)
	}
	if n := inked(img, image.Rect(b.Max.X-3*edge, b.Min.Y, b.Max.X-edge, b.Max.Y)); n == 0 {
		t.Errorf("nothing drawn beside the margin: the chart is not there")
	}
}

// inked counts the pixels of r that are not white.
func inked(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				n++
			}
		}
	}
	return n
}

// TestPlotTitleWraps: no line of a chart's title is wider than the image.
func TestPlotTitleWraps(t *testing.T) {
	long := "questdb_steps: offered 25,000, achieved 24,217 rows/s; max backlog 3,000 rows, max lag 0.083 s; sustainable 10,000 rows/s"
	lines := strings.Split(plotTitle("short first line\n"+long), "\n")
	if len(lines) < 3 || lines[0] != "short first line" {
		t.Fatalf("lines %q", lines)
	}
	for _, l := range lines {
		if w := fontWidth(l, pngTitleSize, false); w > plotWidth.Points()-2*plotMargin {
			t.Errorf("line %q is %.0f pt wide", l, w)
		}
	}
}

// TestPaceSeriesShortLast: a paced run's last period shorter than half
// the one before is left out of its charts (its offered rate over a
// fraction of the period dropped to 0 at the end of every chart).
func TestPaceSeriesShortLast(t *testing.T) {
	pp := &results.PeriodPace{OfferedRowsPerSec: 1000}
	r := Run{Results: &results.Results{Periods: []results.Period{
		{At: 1, Seconds: 1, RowsPerSec: 1000, Batches: 1, Pace: pp},
		{At: 2, Seconds: 1, RowsPerSec: 1000, Batches: 1, Pace: pp},
		{At: 2.1, Seconds: 0.1, RowsPerSec: 9000, Batches: 1, Pace: &results.PeriodPace{}},
	}}}
	rates, lats := paceSeries(r)
	if len(rates[0].pts) != 2 || len(rates[1].pts) != 2 || len(lats[0].pts) != 2 {
		t.Fatalf("points %v %v %v", rates[0].pts, rates[1].pts, lats[0].pts)
	}
	r.Periods[2].Seconds = 0.6 // not short: drawn
	if rates, _ = paceSeries(r); len(rates[0].pts) != 3 {
		t.Fatalf("points %v", rates[0].pts)
	}
}
