package report

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tsload/tsload/pkg/results"
)

// The HTML page's charts are SVG written here rather than by the plotting
// library, so that the layout is known: every label's width is estimated
// (fontWidth) and the margins grow to hold it, legends sit outside the
// plotting area, and titles wrap instead of running off the edge.

// chartFont lists wide fonts first: the width estimates are made for them,
// so narrower fallbacks only leave more room.
const chartFont = "Verdana, 'DejaVu Sans', sans-serif"

// Chart geometry, in SVG user units (pixels at 100%).
const (
	chartWidth  = 760.0
	chartPad    = 12.0
	titleSize   = 15.0
	subSize     = 12.0
	labelSize   = 12.0
	tickSize    = 11.0
	plotHeight0 = 280.0 // height of the plotting area
)

// palette is Tableau 10: distinct for the common kinds of colour blindness.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// fontWidth estimates the advance of s at size px in Verdana or DejaVu Sans
// (among the widest common sans-serif fonts), erring wide.
func fontWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ' || strings.ContainsRune(".,:;'|!il()[]", r):
			w += 0.40
		case unicode.IsDigit(r):
			w += 0.64
		case r == 'm' || r == 'w' || r == 'M' || r == 'W' || r == '%' || r == '—' || r == '–':
			w += 1.0
		case unicode.IsUpper(r):
			w += 0.78
		default:
			w += 0.64
		}
	}
	if bold {
		w *= 1.1
	}
	return w * size
}

// wrapText cuts s into lines no wider than width.
func wrapText(s string, size, width float64, bold bool) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if line != "" && fontWidth(try, size, bold) > width {
			lines = append(lines, line)
			line = word
			continue
		}
		line = try
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// svgBuilder accumulates SVG elements.
type svgBuilder struct {
	b strings.Builder
}

func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func (s *svgBuilder) text(x, y, size float64, anchor, attrs, t string) {
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="%s"%s>%s</text>`+"\n",
		num(x), num(y), num(size), anchor, attrs, html.EscapeString(t))
}

func (s *svgBuilder) line(x1, y1, x2, y2 float64, attrs string) {
	fmt.Fprintf(&s.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>`+"\n", num(x1), num(y1), num(x2), num(y2), attrs)
}

func (s *svgBuilder) rect(x, y, w, h float64, attrs string) {
	fmt.Fprintf(&s.b, `<rect x="%s" y="%s" width="%s" height="%s" %s/>`+"\n", num(x), num(y), num(w), num(h), attrs)
}

// header writes the title and subtitle lines from y and returns the y below them.
func (s *svgBuilder) header(title, subtitle string) float64 {
	y := chartPad
	for _, l := range wrapText(title, titleSize, chartWidth-2*chartPad, true) {
		y += titleSize * 1.3
		s.text(chartPad, y, titleSize, "start", ` font-weight="bold" class="title"`, l)
	}
	for _, l := range wrapText(subtitle, subSize, chartWidth-2*chartPad, false) {
		y += subSize * 1.35
		s.text(chartPad, y, subSize, "start", ` fill="#444" class="subtitle"`, l)
	}
	return y + 6
}

// legendItem is one entry: a swatch (bar, line or dashed line) and a name.
type legendItem struct {
	name, color, kind string // kind: "bar", "line", "dash"
}

// legend lays the items out in rows from y, above the plotting area, and
// returns the y below it.
func (s *svgBuilder) legend(items []legendItem, y float64) float64 {
	if len(items) == 0 {
		return y
	}
	x := chartPad
	y += labelSize * 1.4
	for _, it := range items {
		w := 22 + fontWidth(it.name, labelSize, false) + 18
		if x > chartPad && x+w > chartWidth-chartPad {
			x = chartPad
			y += labelSize * 1.6
		}
		mid := y - labelSize*0.35
		switch it.kind {
		case "bar":
			s.rect(x, mid-6, 16, 12, `fill="`+it.color+`"`)
		case "dash":
			s.line(x, mid, x+16, mid, `stroke="`+it.color+`" stroke-width="2" stroke-dasharray="5,4"`)
		default:
			s.line(x, mid, x+16, mid, `stroke="`+it.color+`" stroke-width="2"`)
			fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(x+8), num(mid), it.color)
		}
		s.text(x+22, y, labelSize, "start", ` class="legend"`, it.name)
		x += w
	}
	return y + 8
}

// niceScale returns an axis maximum >= max and a tick step (1, 2, 2.5 or 5
// times a power of ten) giving about n ticks.
func niceScale(max float64, n int) (top, step float64) {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1, 0.25
	}
	raw := max / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		step = m * p
		if step >= raw {
			break
		}
	}
	top = math.Ceil(max/step-1e-9) * step
	return top, step
}

// axisLabel formats a tick value: comma-grouped integers, else as many
// decimals as the step has.
func axisLabel(v, step float64) string {
	if step >= 1 || v == 0 {
		return thousands(v)
	}
	decimals := int(math.Ceil(-math.Log10(step) - 1e-9))
	if step*math.Pow(10, float64(decimals)) != math.Round(step*math.Pow(10, float64(decimals))) {
		decimals++ // 0.25
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// ticks are 0, step, 2*step, ... up to top (multiplied, not summed, so no
// rounding error creeps in).
func ticks(top, step float64) []float64 {
	var v []float64
	for i := 0; float64(i)*step <= top+step/2; i++ {
		v = append(v, float64(i)*step)
	}
	return v
}

// frame is a plotting area with linear axes from 0.
type frame struct {
	left, top, width, height float64
	xMax, yMax               float64
}

func (f frame) x(v float64) float64 { return f.left + v/f.xMax*f.width }
func (f frame) y(v float64) float64 { return f.top + f.height - v/f.yMax*f.height }

// yAxis draws the y grid, tick labels and the rotated axis title.
func (s *svgBuilder) yAxis(f frame, step float64, title string) {
	for _, v := range ticks(f.yMax, step) {
		y := f.y(v)
		s.line(f.left, y, f.left+f.width, y, `stroke="#ddd" stroke-width="1"`)
		s.text(f.left-6, y+tickSize*0.35, tickSize, "end", ` class="tick"`, axisLabel(v, step))
	}
	s.line(f.left, f.top, f.left, f.top+f.height, `stroke="#333" stroke-width="1"`)
	cx, cy := chartPad+labelSize*0.9, f.top+f.height/2
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="middle" transform="rotate(-90 %s %s)" class="axis-title">%s</text>`+"\n",
		num(cx), num(cy), num(labelSize), num(cx), num(cy), html.EscapeString(title))
}

// timeFrame lays out, from y, a plotting area of seconds since the start
// (to maxX) against a y axis from 0 (to maxY, titled yLabel), draws both
// axes, and returns the area and the chart's bottom.
func (s *svgBuilder) timeFrame(y, maxX, maxY float64, yLabel string) (frame, float64) {
	yMax, yStep := niceScale(maxY*1.05, 5)
	xMax, xStep := niceScale(maxX, 8)
	left := chartPad + labelSize*1.6 + yTickWidth(yMax, yStep) + 8
	right := chartPad + fontWidth(axisLabel(xMax, xStep), tickSize, false)/2
	f := frame{left: left, top: y + 8, width: chartWidth - right - left, height: plotHeight0 * 0.85, xMax: xMax, yMax: yMax}
	bottom := f.top + f.height + 6 + labelSize*1.3 + labelSize*1.6 + chartPad
	s.yAxis(f, yStep, yLabel)
	s.timeAxis(f, xStep, bottom)
	return f, bottom
}

// timeAxis draws the x axis of seconds since the start of the load: its
// ticks and labels, the axis line at y=0, and its title above bottom.
func (s *svgBuilder) timeAxis(f frame, step, bottom float64) {
	for _, v := range ticks(f.xMax, step) {
		x := f.x(v)
		s.line(x, f.top+f.height, x, f.top+f.height+4, `stroke="#333" stroke-width="1"`)
		s.text(x, f.top+f.height+6+labelSize, tickSize, "middle", ` class="tick"`, axisLabel(v, step))
	}
	s.line(f.left, f.y(0), f.left+f.width, f.y(0), `stroke="#333" stroke-width="1"`)
	s.text(f.left+f.width/2, bottom-chartPad-labelSize*0.3, labelSize, "middle", ` class="axis-title"`, "seconds since the start of the load")
}

// yTickWidth is the widest tick label of a y axis.
func yTickWidth(yMax, step float64) float64 {
	w := 0.0
	for _, v := range ticks(yMax, step) {
		w = math.Max(w, fontWidth(axisLabel(v, step), tickSize, false))
	}
	return w
}

// finish wraps the body in an <svg> element of the given height.
func (s *svgBuilder) finish(h float64, label string) string {
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" font-family="%s" role="img" aria-label="%s" class="chart">`+"\n"+
		`<rect x="0" y="0" width="%s" height="%s" fill="#fff"/>`+"\n%s</svg>",
		num(chartWidth), num(h), num(chartWidth), num(h), chartFont, html.EscapeString(label), num(chartWidth), num(h), s.b.String())
}

// BarsSVG draws the cells' median rate as bars with min–max whiskers: the
// first group key on the x axis, the other keys as bars side by side (one
// colour each, named in a legend above the plot). A cell that is not ok has
// no bar: its status is written in red where the bar would be.
func BarsSVG(t *Table, m Metric, context string) (string, error) {
	if len(t.Cells) == 0 {
		return "", fmt.Errorf("no runs to plot")
	}
	xs, xi, groups, gi := barAxes(t)
	type bar struct {
		cell *Cell
		s    Spread
	}
	bars := make([][]*bar, len(groups))
	for g := range bars {
		bars[g] = make([]*bar, len(xs))
	}
	maxV, minRuns, maxRuns := 0.0, math.MaxInt, 0
	var marked []string // the marks of the bars drawn
	leftOut := false    // a preallocated size is not drawn
	for i := range t.Cells {
		c := &t.Cells[i]
		s := c.RowsPerSec
		if m == MetricMetrics {
			s = c.MetricsPerSec
		}
		if m == MetricBytesPerRow {
			s = c.bytesPerRow()
		}
		bars[gi[strings.Join(c.Key[1:], ", ")]][xi[c.Key[0]]] = &bar{c, s}
		if c.OK() && c.noBar(m) == "" {
			maxV = math.Max(maxV, s.Max)
		}
		minRuns, maxRuns = min(minRuns, len(c.Runs)), max(maxRuns, len(c.Runs))
	}

	xTitle := GroupKeys[t.Keys[0]]
	title := fmt.Sprintf("%s by %s", m.label(), xTitle)
	if len(t.Keys) > 1 {
		var rest []string
		for _, k := range t.Keys[1:] {
			rest = append(rest, GroupKeys[k])
		}
		title += " and " + strings.Join(rest, ", ")
	}
	runs := strconv.Itoa(minRuns)
	if maxRuns != minRuns {
		runs += "–" + strconv.Itoa(maxRuns)
	}
	title += fmt.Sprintf(" (bar: median of %s runs; whisker: min–max)", runs)

	var s svgBuilder
	y := s.header(title, context)
	var items []legendItem
	if len(groups) > 1 || groups[0] != "" {
		for g, name := range groupLabels(t, groups, gi) {
			items = append(items, legendItem{name, palette[g%len(palette)], "bar"})
		}
	}
	y = s.legend(items, y)

	// Room above the tallest whisker for its value label.
	const labelRoom = 18.0
	yMax, step := niceScale(maxV/(1-labelRoom/plotHeight0), 5)
	left := chartPad + labelSize*1.6 + yTickWidth(yMax, step) + 8
	// x labels: horizontal when they fit their slot, else turned 40°
	// (ending under their bars); the first one may then need a wider left
	// margin.
	widest, firstW := 0.0, fontWidth(xs[0], labelSize, false)
	for _, x := range xs {
		widest = math.Max(widest, fontWidth(x, labelSize, false))
	}
	cos40, sin40 := math.Cos(40*math.Pi/180), math.Sin(40*math.Pi/180)
	slot := (chartWidth - chartPad - left) / float64(len(xs))
	turn := widest > slot-6
	if turn {
		for i := 0; i < 3; i++ {
			slot = (chartWidth - chartPad - left) / float64(len(xs))
			left = math.Max(left, chartPad+firstW*cos40+labelSize*sin40-slot/2)
		}
	}
	f := frame{left: left, top: y + 8, width: chartWidth - chartPad - left, height: plotHeight0, xMax: float64(len(xs)), yMax: yMax}
	slot = f.width / float64(len(xs))
	barW := slot * 0.8 / float64(len(groups))
	xLabelH := labelSize * 1.3
	if turn {
		xLabelH = widest*sin40 + labelSize + 4
	}
	bottom := f.top + f.height + 6 + xLabelH + labelSize*1.6 + chartPad

	s.yAxis(f, step, m.label())
	for xIdx, x := range xs {
		cx := f.left + slot*(float64(xIdx)+0.5)
		ly := f.top + f.height + 6 + labelSize
		if turn {
			fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="end" transform="rotate(-40 %s %s)" class="tick">%s</text>`+"\n",
				num(cx), num(ly), num(labelSize), num(cx), num(ly), html.EscapeString(x))
		} else {
			s.text(cx, ly, labelSize, "middle", ` class="tick"`, x)
		}
		for g := range groups {
			b := bars[g][xIdx]
			if b == nil {
				continue
			}
			bx := cx + (float64(g)-float64(len(groups))/2)*barW
			mid := bx + barW/2
			if why := b.cell.noBar(m); why != "" {
				leftOut = leftOut || why == leftOutPreallocated
				py := f.top + f.height - 4
				fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="start" fill="#c00000" transform="rotate(-90 %s %s)" class="status">%s</text>`+"\n",
					num(mid+4), num(py), num(labelSize), num(mid+4), num(py), html.EscapeString(why))
				continue
			}
			top := f.y(b.s.Median)
			s.rect(bx+1, top, barW-2, f.y(0)-top, fmt.Sprintf(`fill="%s" class="bar"`, palette[g%len(palette)]))
			cap := math.Min(barW*0.4, 14) / 2
			hi, lo := f.y(b.s.Max), f.y(b.s.Min)
			if b.s.Max > b.s.Min {
				s.line(mid, hi, mid, lo, `stroke="#222" stroke-width="1.5" class="whisker"`)
				s.line(mid-cap, hi, mid+cap, hi, `stroke="#222" stroke-width="1.5"`)
				s.line(mid-cap, lo, mid+cap, lo, `stroke="#222" stroke-width="1.5"`)
			}
			sign := ""
			if m == MetricBytesPerRow && b.cell.Cost != nil {
				sign = b.cell.Cost.markSign()
				if sign != "" {
					marked = append(marked, b.cell.Cost.Marks...)
				}
			}
			s.barValue(mid, hi, f.y(0), slot/float64(len(groups))-2, sign, b.s.Median)
		}
	}
	s.line(f.left, f.y(0), f.left+f.width, f.y(0), `stroke="#333" stroke-width="1"`)
	s.text(f.left+f.width/2, bottom-chartPad-labelSize*0.3, labelSize, "middle", ` class="axis-title"`, xTitle)
	if len(marked) > 0 {
		// What a marked bar is, under the axis title.
		var notes []string
		for _, mk := range []string{results.MarkLowerBound, results.MarkPreallocated, results.MarkWholeServer} {
			if slices.Contains(marked, mk) {
				notes = append(notes, (&CellCost{Marks: []string{mk}}).markSign()+" "+mk)
			}
		}
		s.text(chartPad, bottom+tickSize, tickSize, "start", ` class="note"`, "marked bars: "+strings.Join(notes, "; ")+" (not comparable as they are)")
		bottom += tickSize * 1.8
	}
	if leftOut {
		s.text(chartPad, bottom+tickSize, tickSize, "start", ` class="note"`,
			"left out: sizes that include preallocated column pages (QuestDB: a table's files grow in 16 MiB pages; the table gives the size)")
		bottom += tickSize * 1.8
	}
	return s.finish(bottom, title), nil
}

// barValue writes a bar's value above its whisker top hi: comma-grouped
// when that fits the bar's room (w), else compact (1.2M); a value neither
// form fits is turned upright inside the bar, from its foot (base).
func (s *svgBuilder) barValue(x, hi, base, w float64, sign string, v float64) {
	for _, t := range []string{thousands(v), compact(v)} {
		if fontWidth(sign+t, tickSize, false) <= w {
			s.text(x, hi-5, tickSize, "middle", ` class="value"`, sign+t)
			return
		}
	}
	t := sign + compact(v)
	if fontWidth(t, tickSize, false)+8 > base-hi {
		return // a bar too short to hold it
	}
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="start" fill="#fff" transform="rotate(-90 %s %s)" class="value">%s</text>`+"\n",
		num(x+tickSize*0.35), num(base-4), num(tickSize), num(x+tickSize*0.35), num(base-4), html.EscapeString(t))
}

// compact formats v with k or M for thousands or millions (1.2M, 264k).
func compact(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	}
	return thousands(v)
}

// RateSVG draws one run's rate per reporting period over the seconds since
// it started (a point in the middle of each period, joined by lines), with
// the overall rate dashed; context is the subtitle's second part.
func RateSVG(r Run, m Metric, context string) string {
	overall := r.RowsPerSec
	if m == MetricMetrics {
		overall = r.MetricsPerSec
	}
	title := fmt.Sprintf("%s: %s per reporting period, %s (batch size %d, workers %d)", r.Target, m.label(), r.Loader, r.BatchSize, r.Workers)
	if r.Status != results.StatusOK {
		title = strings.ToUpper(r.Status) + ": " + title
	}
	sub := fmt.Sprintf("%s, %s %s overall, %s rows in %.1f s", runName(r), thousands(overall), m.label(), thousands(float64(r.Rows)), r.Seconds)
	if context != "" {
		sub += "; " + context
	}
	var s svgBuilder
	y := s.header(title, sub)
	y = s.legend([]legendItem{{"per period", palette[0], "line"}, {"overall", "#c00000", "dash"}}, y)

	type pt struct{ x, y float64 }
	var pts []pt
	maxY, maxX := overall, r.Seconds
	for _, p := range plotPeriods(r.Periods) { // a short last period merged (plot.go)
		v := p.RowsPerSec
		if m == MetricMetrics {
			v = p.MetricsPerSec
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(p.At) || math.IsInf(p.At, 0) {
			continue
		}
		pts = append(pts, pt{p.At - p.Seconds/2, v})
		maxY, maxX = math.Max(maxY, v), math.Max(maxX, p.At)
	}
	f, bottom := s.timeFrame(y, maxX, maxY, m.label())

	if len(pts) > 1 {
		var d strings.Builder
		for i, p := range pts {
			if i > 0 {
				d.WriteByte(' ')
			}
			d.WriteString(num(f.x(p.x)) + "," + num(f.y(p.y)))
		}
		fmt.Fprintf(&s.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2" class="series"/>`+"\n", d.String(), palette[0])
	}
	for _, p := range pts {
		fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(f.x(p.x)), num(f.y(p.y)), palette[0])
	}
	if overall > 0 {
		s.line(f.x(0), f.y(overall), f.x(math.Max(r.Seconds, 0)), f.y(overall), `stroke="#c00000" stroke-width="2" stroke-dasharray="5,4" class="overall"`)
	}
	if len(pts) == 0 {
		s.text(f.left+f.width/2, f.top+f.height/2, labelSize, "middle", ` fill="#666"`, "no reporting periods recorded")
	}
	return s.finish(bottom, title)
}
