package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tsload/tsload/pkg/results"
)

// Metric selects the rate a plot shows.
type Metric string

// Metrics a plot can show.
const (
	MetricRows    Metric = "rows"
	MetricMetrics Metric = "metrics"
)

// ParseMetric parses "rows" or "metrics".
func ParseMetric(s string) (Metric, error) {
	switch Metric(s) {
	case MetricRows, MetricMetrics:
		return Metric(s), nil
	}
	return "", fmt.Errorf("unknown metric %q (want rows or metrics)", s)
}

// MetricBytesPerRow is the footprint per row (bars in the HTML page;
// not a rate, so no rate plot shows it).
const MetricBytesPerRow Metric = "bytes_per_row"

func (m Metric) label() string {
	if m == MetricBytesPerRow {
		return "bytes on disk per row"
	}
	return string(m) + "/s"
}

// Image sizes.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// plotPeriods are the periods a rate plot draws: a last period shorter
// than half the one before it (the run ended just after a period began)
// is drawn together with that one, since its rate over a fraction of a
// second counts the batches that were in flight for the whole period
// before (they show as a spike).
func plotPeriods(ps []results.Period) []results.Period {
	n := len(ps)
	if n < 2 || ps[n-1].Seconds >= ps[n-2].Seconds/2 || ps[n-1].Seconds <= 0 {
		return ps
	}
	last, prev := ps[n-1], ps[n-2]
	m := prev
	m.At, m.Seconds = last.At, prev.Seconds+last.Seconds
	m.Rows, m.Metrics, m.Batches, m.TotalRows = prev.Rows+last.Rows, prev.Metrics+last.Metrics, prev.Batches+last.Batches, last.TotalRows
	m.RowsPerSec, m.MetricsPerSec = float64(m.Rows)/m.Seconds, float64(m.Metrics)/m.Seconds
	m.Server = last.Server // RSS at the end
	if prev.Server != nil && last.Server != nil {
		srv := *last.Server
		srv.CPUSeconds += prev.Server.CPUSeconds
		srv.ReadBytes += prev.Server.ReadBytes
		srv.WriteBytes += prev.Server.WriteBytes
		m.Server = &srv
	}
	return append(ps[:n-2:n-2], m)
}

// RatePlot draws one run's insert rate per reporting period against the
// seconds since the run started: lines with a point at the middle of each
// period, y from 0, so
// dips and stalls (periods with few or no rows) stand out. A dashed line
// marks the overall rate. A run without periods (shorter than one reporting
// period) is drawn as its single overall point.
func RatePlot(r Run, m Metric) (*plot.Plot, error) {
	p := plot.New()
	status := ""
	if r.Status != results.StatusOK {
		status = strings.ToUpper(r.Status) + ": "
	}
	overall := r.RowsPerSec
	if m == MetricMetrics {
		overall = r.MetricsPerSec
	}
	p.Title.Padding = vg.Points(8)
	p.Title.Text = fmt.Sprintf("%s%s (%s), batch size %d, workers %d: %s %s overall",
		status, r.Loader, r.Target, r.BatchSize, r.Workers, thousands(overall), m.label())
	if ctx := DatasetText(r); ctx != unknown {
		p.Title.Text += "\n" + ctx
	}
	if srv := ServerText(r); srv != unknown {
		p.Title.Text += "\n" + "server: " + srv
	}
	p.Title.Text = plotTitle(p.Title.Text)
	p.X.Label.Text = "seconds since start"
	p.Y.Label.Text = m.label()
	p.Add(plotter.NewGrid())

	var pts plotter.XYs
	for _, per := range plotPeriods(r.Periods) {
		v := per.RowsPerSec
		if m == MetricMetrics {
			v = per.MetricsPerSec
		}
		// Each point sits in the middle of its period.
		pts = append(pts, plotter.XY{X: per.At - per.Seconds/2, Y: v})
	}
	if len(pts) == 0 {
		pts = append(pts, plotter.XY{X: r.Seconds, Y: overall})
	}
	for _, pt := range pts {
		if math.IsNaN(pt.X) || math.IsInf(pt.X, 0) || math.IsNaN(pt.Y) || math.IsInf(pt.Y, 0) {
			return nil, fmt.Errorf("%s: non-finite period value", r.Path)
		}
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Path, err)
	}
	line.Color = plotutil.Color(2)
	line.Width = vg.Points(1.5)
	points.Color = plotutil.Color(2)
	points.Shape = draw.CircleGlyph{}
	points.Radius = vg.Points(2.5)
	p.Add(line, points)
	p.Legend.Add("per period", line, points)

	end := r.Seconds
	if last := pts[len(pts)-1].X; last > end {
		end = last
	}
	avg, err := plotter.NewLine(plotter.XYs{{X: 0, Y: overall}, {X: end, Y: overall}})
	if err != nil {
		return nil, err
	}
	avg.Color = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	avg.Dashes = []vg.Length{vg.Points(5), vg.Points(4)}
	p.Add(avg)
	p.Legend.Add("overall", avg)
	p.Legend.Top = true

	p.X.Min = 0
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.25 // room for the legend
	p.Y.Tick.Marker = thousandsTicks{}
	return p, nil
}

// thousandsTicks labels the y axis with comma-grouped integers.
type thousandsTicks struct{}

func (thousandsTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = thousands(ticks[i].Value)
		}
	}
	return ticks
}

// BarsPlot draws a grouped bar chart of the cells' median rate: the first
// group key is the x axis, the remaining keys (if any) form the bars of each
// group. A cell that is not ok has no bar and is labelled with its status.
func BarsPlot(t *Table, m Metric) (*plot.Plot, error) {
	if len(t.Cells) == 0 {
		return nil, fmt.Errorf("no runs to plot")
	}
	xs, xi, groups, gi := barAxes(t)
	top := 0.0 // the highest whisker
	values := make([]plotter.Values, len(groups))
	spreads := make([][]Spread, len(groups))
	failed := make([][]string, len(groups))
	present := make([][]bool, len(groups))
	for g := range values {
		values[g] = make(plotter.Values, len(xs))
		spreads[g] = make([]Spread, len(xs))
		failed[g] = make([]string, len(xs))
		present[g] = make([]bool, len(xs))
	}
	for i := range t.Cells {
		c := &t.Cells[i]
		g, x := gi[strings.Join(c.Key[1:], ", ")], xi[c.Key[0]]
		if !c.OK() {
			failed[g][x] = c.Status
			continue
		}
		present[g][x] = true
		sp := c.RowsPerSec
		if m == MetricMetrics {
			sp = c.MetricsPerSec
		}
		values[g][x], spreads[g][x] = sp.Median, sp
		top = math.Max(top, sp.Max)
	}

	p := plot.New()
	p.Title.Padding = vg.Points(8)
	var all []Run
	minRuns, maxRuns := math.MaxInt, 0
	for _, c := range t.Cells {
		all = append(all, c.Runs...)
		minRuns, maxRuns = min(minRuns, len(c.Runs)), max(maxRuns, len(c.Runs))
	}
	runs := fmt.Sprint(minRuns)
	if maxRuns != minRuns {
		runs += "–" + fmt.Sprint(maxRuns)
	}
	p.Title.Text = fmt.Sprintf("%s by %s (bar: median of %s runs; whisker: min–max)", m.label(), GroupKeys[t.Keys[0]], runs)
	titleLines := 1
	if ctx := ChartContext(all, t.Keys); ctx != "" {
		lines := wrapText(ctx, 10, float64(plotWidth.Points())-20, false)
		p.Title.Text += "\n" + strings.Join(lines, "\n")
		titleLines += len(lines)
	}
	p.X.Label.Text = GroupKeys[t.Keys[0]]
	p.Y.Label.Text = m.label()
	p.Add(plotter.NewGrid())
	// The bars of one x value fill 80% of the space between x values.
	dataWidth := plotWidth - 1.5*vg.Inch
	slot := dataWidth / vg.Length(len(xs))
	w := slot * 0.8 / vg.Length(len(groups))
	names := groupLabels(t, groups, gi)
	var labels plotter.XYLabels
	for g := range groups {
		bars, err := plotter.NewBarChart(values[g], w)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(g)
		bars.LineStyle.Width = vg.Length(0)
		bars.Offset = vg.Length(float64(g)-float64(len(groups)-1)/2) * w
		p.Add(bars)
		if wb := whiskerBars(values[g], spreads[g], present[g], (float64(g)-float64(len(groups)-1)/2)*float64(w)/float64(slot)); wb != nil {
			p.Add(wb)
		}
		name := names[g]
		if name == "" {
			name = "median " + m.label()
		}
		var bad []string
		// Labels sit at the bar's place: offsets are in data units here,
		// one unit per x value spanning slot.
		off := (float64(g) - float64(len(groups)-1)/2) * float64(w) / float64(slot)
		for x, s := range failed[g] {
			if s != "" {
				bad = append(bad, xs[x])
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(x) + off, Y: 0})
				labels.Labels = append(labels.Labels, s)
			} else if present[g][x] {
				values := plotter.XYLabels{XYs: plotter.XYs{{X: float64(x) + off, Y: values[g][x]}}, Labels: []string{thousands(values[g][x])}}
				vl, err := plotter.NewLabels(values)
				if err != nil {
					return nil, err
				}
				vl.TextStyle[0].XAlign = draw.XCenter
				vl.XYs[0].Y = spreads[g][x].Max
				vl.Offset.Y = vg.Points(3)
				vl.TextStyle[0].Font.Size = vg.Points(9)
				p.Add(vl)
			}
		}
		if len(bad) > 0 {
			name += " (" + failed[g][xi[bad[0]]] + " at " + strings.Join(bad, ", ") + ")"
		}
		p.Legend.Add(name, bars)
	}
	if len(labels.Labels) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Color = color.RGBA{R: 200, G: 0, B: 0, A: 255}
			l.TextStyle[i].Rotation = math.Pi / 2
			l.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(l)
	}
	p.NominalX(xs...)
	// The bars of the first and last x values reach half a slot beyond
	// them: the axis must too, or the outer bars are cut.
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	p.Legend.Top = true
	p.Y.Min = 0
	if top <= 0 {
		top = 1
	}
	p.Y.Max = top * barsHeadroom(len(groups), titleLines)
	p.Y.Tick.Marker = thousandsTicks{}
	return p, nil
}

// barsHeadroom is the y axis maximum over the highest whisker: room above
// it for its value label and for the legend's rows (top right), so that
// neither covers a bar.
func barsHeadroom(legendRows, titleLines int) float64 {
	dataHeight := float64(plotHeight.Points()) - 50 - 14*float64(titleLines)
	room := (float64(legendRows)*13 + 24) / dataHeight
	return 1 / (1 - math.Min(room, 0.6))
}

// whiskerBars draws the min–max range of each present bar, off data units
// to the side of the x value (where its bar is).
func whiskerBars(values plotter.Values, spreads []Spread, present []bool, off float64) *plotter.YErrorBars {
	var e whiskers
	for x := range values {
		if present[x] && spreads[x].Max > spreads[x].Min {
			e.xys = append(e.xys, plotter.XY{X: float64(x) + off, Y: values[x]})
			e.errs = append(e.errs, struct{ Low, High float64 }{values[x] - spreads[x].Min, spreads[x].Max - values[x]})
		}
	}
	if len(e.xys) == 0 {
		return nil
	}
	b, err := plotter.NewYErrorBars(e)
	if err != nil {
		return nil
	}
	b.LineStyle.Width = vg.Points(1.2)
	b.CapWidth = vg.Points(8)
	return b
}

// whiskers implements plotter.XYer and plotter.YErrorer.
type whiskers struct {
	xys  plotter.XYs
	errs plotter.YErrors
}

func (w whiskers) Len() int                        { return len(w.xys) }
func (w whiskers) XY(i int) (float64, float64)     { return w.xys[i].X, w.xys[i].Y }
func (w whiskers) YError(i int) (float64, float64) { return w.errs[i].Low, w.errs[i].High }

// plotMargin is the blank border around a saved chart: gonum draws the
// data area, its legend and the last x tick label up to the canvas's
// right edge, where the legend's point glyphs and the label were cut.
const plotMargin = 14 // points

// savePlot writes p as base.png and base.svg, inside a margin of
// plotMargin, and returns the file names.
func savePlot(p *plot.Plot, base string) ([]string, error) {
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		name := base + ext
		if err := saveWithMargin(p, name, ext[1:]); err != nil {
			return files, fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, name)
	}
	return files, nil
}

// plotTitle wraps each line of a chart's title to the width of the saved
// image (within its margin), so that no line runs off both sides.
func plotTitle(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		out = append(out, wrapText(line, pngTitleSize, float64(plotWidth.Points())-2*plotMargin-20, false)...)
	}
	return strings.Join(out, "\n")
}

// pngTitleSize is gonum's title font size, in points, for wrapText.
const pngTitleSize = 12

func saveWithMargin(p *plot.Plot, name, format string) error {
	c, err := draw.NewFormattedCanvas(plotWidth, plotHeight, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	dc.SetColor(p.BackgroundColor)
	dc.Fill(dc.Rectangle.Path())
	m := vg.Points(plotMargin)
	p.Draw(draw.Crop(dc, m/2, -m, m/2, -m/2))
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// uniqueBase returns DIR/<name of path without .json>, adding -2, -3, ...
// when two inputs share a file name.
func uniqueBase(dir, path, suffix string, used map[string]bool) string {
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	base := filepath.Join(dir, name+suffix)
	for i := 2; used[base]; i++ {
		base = filepath.Join(dir, fmt.Sprintf("%s-%d%s", name, i, suffix))
	}
	used[base] = true
	return base
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }

// barAxes orders a bar chart's x values (the cells' first group key) and
// bar groups (the remaining keys) as they first appear, with each one's
// index; BarsPlot and BarsSVG lay their bars out by it.
func barAxes(t *Table) (xs []string, xi map[string]int, groups []string, gi map[string]int) {
	xi, gi = map[string]int{}, map[string]int{}
	for _, c := range t.Cells {
		x, g := c.Key[0], strings.Join(c.Key[1:], ", ")
		if _, ok := xi[x]; !ok {
			xi[x] = len(xs)
			xs = append(xs, x)
		}
		if _, ok := gi[g]; !ok {
			gi[g] = len(groups)
			groups = append(groups, g)
		}
	}
	return xs, xi, groups, gi
}

// groupLabels names each bar group of t for a legend by its keys and
// values ("server QuestDB 9.3.4, API http"), leaving out a key a group has
// no value for (an API the target does not have); "" when no key names it.
func groupLabels(t *Table, groups []string, gi map[string]int) []string {
	labels := make([]string, len(groups))
	for _, c := range t.Cells {
		g := gi[strings.Join(c.Key[1:], ", ")]
		if labels[g] != "" {
			continue
		}
		var parts []string
		for i, k := range t.Keys[1:] {
			if v := c.Key[1+i]; v != "" {
				parts = append(parts, GroupKeys[k]+" "+v)
			}
		}
		labels[g] = strings.Join(parts, ", ")
	}
	return labels
}
