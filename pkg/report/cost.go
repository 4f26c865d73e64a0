package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/results"
)

// CellCost is what the runs of a cell cost (results.Cost): medians across the
// runs that measured each figure.
type CellCost struct {
	// Bytes is the settled footprint, BytesPerRow over the rows the
	// tables hold; FootprintRuns counts the runs that measured it.
	Bytes, BytesPerRow Spread
	FootprintRuns      int
	// Unsettled counts runs whose size still changed when the settle
	// wait ended.
	Unsettled int
	// ServerCPUPerMRows is server CPU seconds per million rows,
	// ServerRSSPeak the server's peak RSS; ServerRuns counts the runs
	// that measured the server.
	ServerCPUPerMRows, ServerRSSPeak Spread
	ServerRuns                       int
	// LoaderCPUPerMRows is the loader's own CPU seconds per million rows.
	LoaderCPUPerMRows Spread
	LoaderRuns        int
	// NotMeasured are the reasons given by runs that did not measure a
	// figure ("server: remote server db:5432"), once each.
	NotMeasured []string
	// Marks are the footprint marks of the runs that measured it
	// (results.MarkLowerBound, results.MarkPreallocated), once each; DataBytes
	// the data's own size beside a marked size, where the database told
	// it (DataRuns runs).
	Marks     []string
	DataBytes Spread
	DataRuns  int
}

// costColumns follow valueColumns when some run has costs.
var costColumns = []string{"MB on disk", "bytes/row", "server CPU-s/M rows", "server peak RSS MB", "loader CPU-s/M rows"}

var csvCostColumns = []string{"disk_bytes", "bytes_per_row", "server_cpu_s_per_million_rows", "server_rss_peak_bytes", "loader_cpu_s_per_million_rows", "footprint_mark", "data_bytes"}

// computeCost fills c.Cost from the ok runs that carry costs.
func (c *Cell) computeCost() {
	var bytes, perRow, cpu, rss, loader, data []float64
	seen := map[string]bool{}
	note := func(what, why string) {
		if s := what + ": " + why; !seen[s] {
			seen[s] = true
			c.Cost.NotMeasured = append(c.Cost.NotMeasured, s)
		}
	}
	for _, r := range c.Runs {
		if r.Cost == nil {
			continue
		}
		if c.Cost == nil {
			c.Cost = &CellCost{}
		}
		if r.Status != results.StatusOK {
			continue
		}
		switch fp := r.Cost.Footprint; {
		case fp == nil:
		case fp.NotMeasured != "" && fp.Error != "":
			note("footprint", fp.NotMeasured+" ("+fp.Error+")")
		case fp.NotMeasured != "":
			note("footprint", fp.NotMeasured)
		case fp.SettledBytes == 0 && fp.Rows > 0:
			// Results written before a zero size was refused as a figure.
			note("footprint", "the database reported 0 bytes for the loaded rows (not yet in the files it counts)")
		default:
			bytes = append(bytes, float64(fp.SettledBytes))
			perRow = append(perRow, fp.BytesPerRow)
			if fp.Mark != "" && !slices.Contains(c.Cost.Marks, fp.Mark) {
				c.Cost.Marks = append(c.Cost.Marks, fp.Mark)
			}
			if fp.DataBytes > 0 {
				data = append(data, float64(fp.DataBytes))
			}
			if fp.SettleSeconds > 0 && !fp.Settled {
				c.Cost.Unsettled++
			}
		}
		switch s := r.Cost.Server; {
		case s == nil:
		case s.NotMeasured != "":
			note("server", s.NotMeasured)
		default:
			cpu = append(cpu, s.CPUSecondsPerMRows)
			rss = append(rss, float64(s.RSSPeakBytes))
		}
		if l := r.Cost.Loader; l.NotMeasured == "" && r.Rows > 0 {
			loader = append(loader, l.CPUSecondsPerMRows)
		}
	}
	if c.Cost == nil {
		return
	}
	k := c.Cost
	k.Bytes, k.BytesPerRow, k.FootprintRuns = spreadOf(bytes), spreadOf(perRow), len(bytes)
	k.DataBytes, k.DataRuns = spreadOf(data), len(data)
	sort.Strings(k.Marks)
	k.ServerCPUPerMRows, k.ServerRSSPeak, k.ServerRuns = spreadOf(cpu), spreadOf(rss), len(cpu)
	k.LoaderCPUPerMRows, k.LoaderRuns = spreadOf(loader), len(loader)
	sort.Strings(k.NotMeasured)
}

// hasCost reports whether some cell has costs (the table then has the
// cost columns).
func (t *Table) hasCost() bool {
	for i := range t.Cells {
		if t.Cells[i].Cost != nil {
			return true
		}
	}
	return false
}

// costRow is the cell's cost columns for Markdown and HTML.
func (c *Cell) costRow() []string {
	k := c.Cost
	if k == nil {
		return []string{"–", "–", "–", "–", "–"}
	}
	if !c.OK() {
		return []string{c.Status, c.Status, c.Status, c.Status, c.Status}
	}
	nm := "not measured"
	row := []string{nm, nm, nm, nm, nm}
	if k.FootprintRuns > 0 {
		row[0] = strconv.FormatFloat(k.Bytes.Median/1e6, 'f', 1, 64)
		row[1] = strconv.FormatFloat(k.BytesPerRow.Median, 'f', 1, 64)
		if k.Unsettled > 0 {
			row[0] += " (still changing)"
		}
		if m := k.markText(); m != "" {
			row[0] += " (" + m + ")"
			row[1] = k.markSign() + row[1]
		}
	}
	if k.ServerRuns > 0 {
		row[2] = strconv.FormatFloat(k.ServerCPUPerMRows.Median, 'f', 2, 64)
		row[3] = thousands(k.ServerRSSPeak.Median / 1e6)
	}
	if k.LoaderRuns > 0 {
		row[4] = strconv.FormatFloat(k.LoaderCPUPerMRows.Median, 'f', 2, 64)
	}
	return row
}

// csvCostRow is the cell's cost columns for CSV: plain numbers, empty when
// not measured.
func (c *Cell) csvCostRow() []string {
	k := c.Cost
	row := make([]string, len(csvCostColumns))
	if k == nil || !c.OK() {
		return row
	}
	if k.FootprintRuns > 0 {
		row[0] = plain(k.Bytes.Median)
		row[1] = strconv.FormatFloat(k.BytesPerRow.Median, 'f', 2, 64)
		row[5] = strings.Join(k.Marks, "; ")
		if k.DataRuns > 0 {
			row[6] = plain(k.DataBytes.Median)
		}
	}
	if k.ServerRuns > 0 {
		row[2] = strconv.FormatFloat(k.ServerCPUPerMRows.Median, 'f', 3, 64)
		row[3] = plain(k.ServerRSSPeak.Median)
	}
	if k.LoaderRuns > 0 {
		row[4] = strconv.FormatFloat(k.LoaderCPUPerMRows.Median, 'f', 3, 64)
	}
	return row
}

// markText is the cell's footprint marks, with the data's own size beside
// them when known ("" when unmarked).
func (k *CellCost) markText() string {
	if len(k.Marks) == 0 {
		return ""
	}
	s := strings.Join(k.Marks, ", ")
	if k.DataRuns > 0 {
		s += "; the data itself " + strconv.FormatFloat(k.DataBytes.Median/1e6, 'f', 1, 64) + " MB"
	}
	return s
}

// markSign prefixes a marked bytes/row figure: "≥" for a lower bound, "*"
// for a size that includes preallocated space, "†" for the whole server's
// storage.
func (k *CellCost) markSign() string {
	sign := ""
	for _, m := range k.Marks {
		switch m {
		case results.MarkLowerBound:
			sign += "≥"
		case results.MarkWholeServer:
			sign += "†"
		default:
			sign += "*"
		}
	}
	return sign
}

// costNotes lists, under a table, why figures were not measured.
func (t *Table) costNotes() []string {
	var out []string
	for i := range t.Cells {
		c := &t.Cells[i]
		if c.Cost == nil {
			continue
		}
		for _, n := range c.Cost.NotMeasured {
			out = append(out, fmt.Sprintf("%s: not measured: %s", strings.Join(c.Key, ", "), n))
		}
	}
	return out
}

// costLegend explains the cost columns.
const costLegend = "MB on disk and bytes/row: the loaded tables' settled size by the database's own accounting (median across runs), " +
	"unless marked (≥ " + results.MarkLowerBound + ", * " + results.MarkPreallocated + ", † " + results.MarkWholeServer + ": every database on the server, " +
	"not comparable with a table's size); server CPU-s/M rows and peak RSS: the server's process tree sampled from /proc during the load (a local server only; other clients' work on it counts too); loader CPU-s/M rows: the loader's own CPU."

// ServerSVG draws a run's server CPU (cores busy: CPU seconds over the
// period's seconds, left axis) and RSS (MB at the period's end, right
// axis) per reporting period, for the page beside the run's rate. It
// returns "" when the run has no server figures.
func ServerSVG(r Run) string {
	type pt struct{ x, cpu, rss float64 }
	var pts []pt
	maxCPU, maxRSS, maxX := 0.0, 0.0, r.Seconds
	for _, p := range plotPeriods(r.Periods) { // a short last period merged (plot.go)
		if p.Server == nil || !(p.Seconds > 0) || math.IsInf(p.At, 0) || math.IsNaN(p.At) {
			continue
		}
		c, m := p.Server.CPUSeconds/p.Seconds, float64(p.Server.RSSBytes)/1e6
		pts = append(pts, pt{p.At - p.Seconds/2, c, m})
		maxCPU, maxRSS, maxX = math.Max(maxCPU, c), math.Max(maxRSS, m), math.Max(maxX, p.At)
	}
	if len(pts) == 0 {
		return ""
	}
	title := fmt.Sprintf("%s: server CPU and memory per reporting period (batch size %d, workers %d)", r.Target, r.BatchSize, r.Workers)
	sub := runName(r)
	if r.Cost != nil && r.Cost.Server != nil && r.Cost.Server.NotMeasured == "" {
		s := r.Cost.Server
		sub += fmt.Sprintf(", %.2f CPU-s in all (%.2f per million rows), peak RSS %s MB, %s MB written", s.CPUSeconds, s.CPUSecondsPerMRows,
			thousands(float64(s.RSSPeakBytes)/1e6), thousands(float64(s.WriteBytes)/1e6))
	}
	var s svgBuilder
	y := s.header(title, sub)
	y = s.legend([]legendItem{{"CPU cores busy (left)", palette[1], "line"}, {"RSS MB (right)", palette[4], "line"}}, y)
	cTop, cStep := niceScale(maxCPU*1.05, 5)
	mTop, mStep := niceScale(maxRSS*1.05, 5)
	xMax, xStep := niceScale(maxX, 8)
	left := chartPad + labelSize*1.6 + yTickWidth(cTop, cStep) + 8
	right := chartPad + labelSize*1.6 + yTickWidth(mTop, mStep) + 8
	f := frame{left: left, top: y + 8, width: chartWidth - right - left, height: plotHeight0 * 0.85, xMax: xMax, yMax: cTop}
	bottom := f.top + f.height + 6 + labelSize*1.3 + labelSize*1.6 + chartPad
	s.yAxis(f, cStep, "CPU cores")
	// The right axis: RSS, on its own scale.
	fm := f
	fm.yMax = mTop
	xr := f.left + f.width
	s.line(xr, f.top, xr, f.top+f.height, `stroke="#333" stroke-width="1"`)
	for _, v := range ticks(mTop, mStep) {
		s.text(xr+6, fm.y(v)+tickSize*0.35, tickSize, "start", ` class="tick"`, axisLabel(v, mStep))
	}
	cx, cy := chartWidth-chartPad-labelSize*0.4, f.top+f.height/2
	fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="middle" transform="rotate(-90 %s %s)" class="axis-title">RSS MB</text>`+"\n",
		num(cx), num(cy), num(labelSize), num(cx), num(cy))
	s.timeAxis(f, xStep, bottom)
	for _, series := range []struct {
		fr    frame
		v     func(pt) float64
		color string
		class string
	}{{f, func(p pt) float64 { return p.cpu }, palette[1], "cpu"}, {fm, func(p pt) float64 { return p.rss }, palette[4], "rss"}} {
		var d strings.Builder
		for j, p := range pts {
			if j > 0 {
				d.WriteByte(' ')
			}
			d.WriteString(num(series.fr.x(p.x)) + "," + num(series.fr.y(series.v(p))))
		}
		if len(pts) > 1 {
			fmt.Fprintf(&s.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2" class="series %s"/>`+"\n", d.String(), series.color, series.class)
		}
		for _, p := range pts {
			fmt.Fprintf(&s.b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(series.fr.x(p.x)), num(series.fr.y(series.v(p))), series.color)
		}
	}
	return s.finish(bottom, title)
}

// bytesPerRow is the cell's bytes per row (zero without a footprint).
func (c *Cell) bytesPerRow() Spread {
	if c.Cost == nil {
		return Spread{}
	}
	return c.Cost.BytesPerRow
}

// noBar says why the cell has no bar for m ("" when it has one).
func (c *Cell) noBar(m Metric) string {
	switch {
	case !c.OK():
		return c.Status
	case m == MetricBytesPerRow && (c.Cost == nil || c.Cost.FootprintRuns == 0):
		return "not measured"
	case m == MetricBytesPerRow && slices.Contains(c.Cost.Marks, results.MarkPreallocated):
		// QuestDB allocates column files in append pages (16 MiB) and
		// the file system holds them (fallocate: st_blocks is the same
		// size), so a small load's bytes/row is many times a large one's:
		// no bar beside the others' (the table keeps the figure).
		return leftOutPreallocated
	}
	return ""
}

// leftOutPreallocated stands in the bytes/row chart for a size that
// includes preallocated space.
const leftOutPreallocated = "left out: " + results.MarkPreallocated

// hasFootprint reports whether some cell measured a footprint.
func (t *Table) hasFootprint() bool {
	for i := range t.Cells {
		if k := t.Cells[i].Cost; k != nil && k.FootprintRuns > 0 {
			return true
		}
	}
	return false
}

// WriteCostMarkdown writes the compact cost table (`report table --format
// cost`): per cell the median rows/s, and what the load cost: bytes on
// disk, bytes per row, server CPU seconds per million rows, the server's
// peak RSS and the loader's own CPU. Reasons for what was not measured
// follow the table.
func (t *Table) WriteCostMarkdown(w io.Writer) error {
	var b strings.Builder
	t.writeMDHeader(&b, append([]string{"rows/s"}, costColumns...))
	var failures []string
	for i := range t.Cells {
		c := &t.Cells[i]
		rate := c.Status
		if c.OK() {
			rate = thousands(c.RowsPerSec.Median)
		}
		writeMDRow(&b, append(append(append([]string(nil), c.Key...), rate), c.costRow()...))
		failures = append(failures, c.Errors...)
	}
	t.writeMDNotes(&b, true, failures)
	_, err := io.WriteString(w, b.String())
	return err
}
