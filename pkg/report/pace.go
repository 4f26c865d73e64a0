package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tsload/tsload/pkg/results"
)

// Paced runs (load_* --rate, --rate-steps; docs/rate.md) carry
// Results.Pace and a Pace per period: the table adds the offered rate,
// the p99 latency from the due time, the largest lag and the sustainable
// rate; the plots and the HTML page draw offered against achieved rows/s
// and the latency percentiles, from due and from send, over time.

// Columns of a table whose runs include paced ones.
var (
	paceColumns    = []string{"offered rows/s", "p99 from due ms", "max lag s", "sustainable rows/s"}
	csvPaceColumns = []string{"offered_rows_per_sec", "p99_from_due_ms", "max_lag_seconds", "sustainable_rows_per_sec"}
)

// hasPace reports whether some run of t was paced.
func (t *Table) hasPace() bool {
	for i := range t.Cells {
		for _, r := range t.Cells[i].Runs {
			if r.Pace != nil {
				return true
			}
		}
	}
	return false
}

// paceValues are the medians over the cell's paced runs that are ok
// (ok false when there are none); atLeast: some run's sustainable rate
// is a lower bound (its staircase ended before a step failed).
func (c *Cell) paceValues() (offered, p99, lag, sustainable float64, stepped, atLeast, ok bool) {
	var o, p, l, s []float64
	for _, r := range c.Runs {
		if r.Pace == nil || r.Status != results.StatusOK {
			continue
		}
		o = append(o, r.Pace.OfferedRowsPerSec)
		p = append(p, r.Pace.LatencyFromDue.P99)
		l = append(l, r.Pace.MaxLagSeconds)
		if len(r.Pace.Steps) > 0 {
			stepped = true
			s = append(s, r.Pace.SustainableRowsPerSec)
			atLeast = atLeast || r.Pace.SustainableAtLeast
		}
	}
	if len(o) == 0 {
		return 0, 0, 0, 0, false, false, false
	}
	return spreadOf(o).Median, spreadOf(p).Median, spreadOf(l).Median, spreadOf(s).Median, stepped, atLeast, true
}

// paceRow is the cell's pace columns, formatted with f (thousands or
// plain); marked, a sustainable rate that is a lower bound reads "≥ X"
// (a CSV keeps the number).
func (c *Cell) paceRow(f func(float64) string, marked bool) []string {
	if !c.OK() {
		return []string{c.Status, c.Status, c.Status, c.Status}
	}
	offered, p99, lag, sustainable, stepped, atLeast, ok := c.paceValues()
	if !ok {
		return []string{"closed loop", "", "", ""}
	}
	sus := ""
	if stepped {
		sus = f(sustainable)
		if sustainable == 0 {
			sus = "none"
		} else if atLeast && marked {
			sus = "≥ " + sus
		}
	}
	return []string{f(offered), ms(p99), strconv.FormatFloat(lag, 'f', 3, 64), sus}
}

// paceLegend explains the pace columns under a Markdown table.
const paceLegend = "offered rows/s, p99 from due ms, max lag s, sustainable rows/s: paced runs (--rate, --rate-steps), medians across runs; latency from due counts from when each batch was due to be sent, waits included; sustainable: the highest step that kept the SLO with a bounded backlog, ≥ when the staircase ended (input, MAX) before a step failed: a lower bound, not the server's limit (docs/rate.md)."

// timeSeries is one line of a chart over the seconds since the start.
type timeSeries struct {
	name string
	dash bool
	pts  []plotter.XY
}

// paceSeries are the rate series (offered, achieved) and the latency
// series (p50 and p99 from due, p99 from send) of r's periods.
func paceSeries(r Run) (rates, lats []timeSeries) {
	rates = []timeSeries{{name: "offered rows/s", dash: true}, {name: "achieved rows/s"}}
	lats = []timeSeries{{name: "p99 from due"}, {name: "p50 from due"}, {name: "p99 from send", dash: true}}
	ps := r.Periods
	if n := len(ps); n >= 2 && ps[n-1].Seconds < ps[n-2].Seconds/2 {
		// A last period shorter than half the one before (the run ended
		// just after it began) is left out: its rates over a fraction of
		// the period spike or drop, and its percentiles cannot be merged
		// into the period before (plotPeriods merges the rate chart's).
		ps = ps[:n-1]
	}
	for _, p := range ps {
		if p.Pace == nil || !finite(p.At) || !finite(p.Seconds) {
			continue
		}
		x := p.At - p.Seconds/2
		for i, v := range []float64{p.Pace.OfferedRowsPerSec, p.RowsPerSec} {
			if finite(v) {
				rates[i].pts = append(rates[i].pts, plotter.XY{X: x, Y: v})
			}
		}
		if p.Batches == 0 {
			continue // no latency in a period without an acknowledgement
		}
		for i, v := range []float64{p.Pace.LatencyFromDue.P99, p.Pace.LatencyFromDue.P50, p.Pace.Latency.P99} {
			if finite(v) {
				lats[i].pts = append(lats[i].pts, plotter.XY{X: x, Y: v})
			}
		}
	}
	return rates, lats
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// paceTitle is the first part of a pace chart's title.
func paceTitle(r Run) string {
	t := fmt.Sprintf("%s (%s), batch size %d, workers %d", r.Loader, r.Target, r.BatchSize, r.Workers)
	if r.Status != results.StatusOK {
		t = strings.ToUpper(r.Status) + ": " + t
	}
	return t
}

// paceSubtitle sums the run's pace up.
func paceSubtitle(r Run) string {
	pc := r.Pace
	s := fmt.Sprintf("%s: offered %s, achieved %s rows/s; max backlog %s rows, max lag %.3f s",
		runName(r), thousands(pc.OfferedRowsPerSec), thousands(pc.AchievedRowsPerSec), thousands(float64(pc.MaxBacklogRows)), pc.MaxLagSeconds)
	if pc.SLOMet != nil {
		verdict := "met"
		if !*pc.SLOMet {
			verdict = "NOT met"
		}
		s += fmt.Sprintf("; SLO p%g < %g ms %s (%.1f ms)", pc.SLOQuantile, pc.SLOMillis, verdict, pc.SLOQuantileMillis)
	}
	if len(pc.Steps) > 0 {
		if pc.SustainableRowsPerSec > 0 && pc.SustainableAtLeast {
			s += "; sustainable at least " + thousands(pc.SustainableRowsPerSec) + " rows/s (no step failed)"
		} else if pc.SustainableRowsPerSec > 0 {
			s += "; sustainable " + thousands(pc.SustainableRowsPerSec) + " rows/s"
		} else {
			s += "; no step sustainable"
		}
	}
	return s
}

// PacePlots draws a paced run's offered against achieved rows/s and its
// latency percentiles (from due and from send) per reporting period; nil
// for a run that was not paced.
func PacePlots(r Run) (rates, latency *plot.Plot, err error) {
	if r.Pace == nil {
		return nil, nil, nil
	}
	rs, ls := paceSeries(r)
	rates, err = seriesPlot(paceTitle(r)+": offered vs achieved\n"+paceSubtitle(r), "rows/s", rs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Path, err)
	}
	l := r.Pace.LatencyFromDue
	latency, err = seriesPlot(fmt.Sprintf("%s: batch latency per period\nfrom due over the run: p50 %.1f, p99 %.1f, max %.1f ms; from send: p99 %.1f ms",
		paceTitle(r), l.P50, l.P99, l.Max, r.Latency.P99), "ms", ls)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Path, err)
	}
	return rates, latency, nil
}

// seriesPlot draws lines over the seconds since the start, y from 0.
func seriesPlot(title, yLabel string, series []timeSeries) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = plotTitle(title)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "seconds since start"
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	for i, s := range series {
		if len(s.pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(plotter.XYs(s.pts))
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		if s.dash {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(4)}
		}
		points.Color = plotutil.Color(i)
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(2)
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	p.Legend.Top = true
	p.X.Min, p.Y.Min = 0, 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.25 // room for the legend
	p.Y.Tick.Marker = thousandsTicks{}
	return p, nil
}

// savePacePlots writes a paced run's two plots beside its rate plot
// (DIR/<name>.pace and .latency, png and svg) and returns the files.
func savePacePlots(r Run, dir string, used map[string]bool) ([]string, error) {
	rates, lat, err := PacePlots(r)
	if err != nil || rates == nil {
		return nil, err
	}
	files, err := savePlot(rates, uniqueBase(dir, r.Path, ".pace", used))
	if err != nil {
		return files, err
	}
	more, err := savePlot(lat, uniqueBase(dir, r.Path, ".latency", used))
	return append(files, more...), err
}

// PaceSVGs are the HTML page's charts of a paced run (none for another):
// offered against achieved rows/s, and latency percentiles over time.
func PaceSVGs(r Run) []string {
	if r.Pace == nil {
		return nil
	}
	rs, ls := paceSeries(r)
	l := r.Pace.LatencyFromDue
	return []string{
		seriesSVG(paceTitle(r)+": offered vs achieved rows/s", paceSubtitle(r), "rows/s", rs, r.Seconds),
		seriesSVG(paceTitle(r)+": batch latency per period, ms",
			fmt.Sprintf("%s: from due over the run p50 %.1f, p99 %.1f, max %.1f ms; from send p99 %.1f ms", runName(r), l.P50, l.P99, l.Max, r.Latency.P99),
			"ms", ls, r.Seconds),
	}
}

// seriesSVG draws lines over the seconds since the start, y from 0, with
// a legend above the plotting area (the layout of RateSVG).
func seriesSVG(title, sub, yLabel string, series []timeSeries, seconds float64) string {
	var s svgBuilder
	y := s.header(title, sub)
	var items []legendItem
	maxX, maxY := seconds, 0.0
	for i, sr := range series {
		kind := "line"
		if sr.dash {
			kind = "dash"
		}
		items = append(items, legendItem{sr.name, palette[i%len(palette)], kind})
		for _, p := range sr.pts {
			maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
		}
	}
	y = s.legend(items, y)
	f, bottom := s.timeFrame(y, maxX, maxY, yLabel)
	empty := true
	for i, sr := range series {
		c := palette[i%len(palette)]
		if len(sr.pts) > 1 {
			var d strings.Builder
			for j, p := range sr.pts {
				if j > 0 {
					d.WriteByte(' ')
				}
				d.WriteString(num(f.x(p.X)) + "," + num(f.y(p.Y)))
			}
			dash := ""
			if sr.dash {
				dash = ` stroke-dasharray="5,4"`
			}
			fmt.Fprintf(&s.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s class="series"/>`+"\n", d.String(), c, dash)
		}
		for _, p := range sr.pts {
			fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", num(f.x(p.X)), num(f.y(p.Y)), c)
			empty = false
		}
	}
	if empty {
		s.text(f.left+f.width/2, f.top+f.height/2, labelSize, "middle", ` fill="#666"`, "no reporting periods recorded")
	}
	return s.finish(bottom, title)
}
