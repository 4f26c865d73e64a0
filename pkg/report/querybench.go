package report

import (
	"encoding/csv"
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/results"
)

// Runs of a query set (load_* --queries; docs/queries.md) carry
// Results.QueryBench: a second table, one row per cell and query type,
// follows the load table in Markdown, CSV and HTML. A figure is the median
// across the cell's runs that answered the type, with min–max where they
// differ; errors, checked and wrong answers are summed over the runs (a
// wrong answer fails its run, so a failed run's figures count too).

// Columns of the per-query-type table after the group keys.
var (
	benchColumns    = []string{"query type", "runs", "queries", "q/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "checked / wrong answers"}
	csvBenchColumns = []string{"query_type", "runs", "queries", "queries_per_sec", "queries_per_sec_min", "queries_per_sec_max",
		"p50_ms", "p90_ms", "p99_ms", "p99_ms_min", "p99_ms_max", "max_ms", "errors", "checked", "wrong"}
)

// benchLegend explains the per-query-type table.
const benchLegend = "Query benchmark (load_* --queries, docs/queries.md): one row per query type; queries: answered per run; " +
	"q/s: answered queries over the run's measured seconds; p50–max ms: latency from each query's send (its due time when paced), " +
	"median across runs (min–max in brackets where several differ); errors and checked / wrong answers: summed over the runs."

// benchRow is one (cell, query type): the runs' figures for the type.
type benchRow struct {
	key  []string
	name string
	// runs had the type; answered had answers, unsupported was declared
	// unsupported by the target, unchecked ran with --check=false.
	runs, answered, unsupported, unchecked int
	count, qps, p50, p90, p99, maxMs       []float64
	errors, checked, wrong                 int64
}

// hasQueryBench reports whether some run of t ran a query set.
func (t *Table) hasQueryBench() bool {
	for i := range t.Cells {
		for _, r := range t.Cells[i].Runs {
			if r.QueryBench != nil {
				return true
			}
		}
	}
	return false
}

// queryBenchRows is t's per-query-type rows: its cells in order, each
// cell's types in the order they first appear in its runs.
func (t *Table) queryBenchRows() []*benchRow {
	var rows []*benchRow
	for i := range t.Cells {
		c := &t.Cells[i]
		byName := map[string]*benchRow{}
		for _, r := range c.Runs {
			qb := r.QueryBench
			if qb == nil {
				continue
			}
			for _, qt := range qb.Types {
				b := byName[qt.Name]
				if b == nil {
					b = &benchRow{key: c.Key, name: qt.Name}
					byName[qt.Name] = b
					rows = append(rows, b)
				}
				b.add(qb, qt)
			}
		}
	}
	return rows
}

func (b *benchRow) add(qb *results.QueryBench, qt results.QueryBenchType) {
	b.runs++
	b.errors += qt.Errors
	if qt.Unsupported > 0 && qt.Count == 0 {
		b.unsupported++
		return
	}
	if !qb.Checked {
		b.unchecked++
	}
	b.checked += qt.Checked
	b.wrong += qt.Wrong
	if qt.Count == 0 {
		return
	}
	b.answered++
	qps := 0.0
	if qb.Seconds > 0 {
		qps = float64(qt.Count) / qb.Seconds
	}
	b.count = append(b.count, float64(qt.Count))
	b.qps = append(b.qps, qps)
	b.p50 = append(b.p50, qt.Latency.P50)
	b.p90 = append(b.p90, qt.Latency.P90)
	b.p99 = append(b.p99, qt.Latency.P99)
	b.maxMs = append(b.maxMs, qt.Latency.Max)
}

// figure is a median, with the min–max in brackets when the runs differ.
func figure(v []float64, f func(float64) string) string {
	s := spreadOf(v)
	if len(v) < 2 || f(s.Min) == f(s.Max) {
		return f(s.Median)
	}
	return f(s.Median) + " (" + f(s.Min) + "–" + f(s.Max) + ")"
}

// checkedText is the checked / wrong answers column in Markdown.
func (b *benchRow) checkedText() string {
	switch {
	case b.unchecked == b.runs-b.unsupported:
		return "not checked"
	case b.unchecked > 0:
		return fmt.Sprintf("%d / %d (%d of %d runs not checked)", b.checked, b.wrong, b.unchecked, b.runs)
	}
	return fmt.Sprintf("%d / %d", b.checked, b.wrong)
}

// markdownRow is the row's values after the group keys.
func (b *benchRow) markdownRow() []string {
	runs := strconv.Itoa(b.runs)
	if b.unsupported == b.runs {
		row := []string{b.name, runs}
		for range benchColumns[2:] {
			row = append(row, "unsupported")
		}
		return row
	}
	if b.unsupported > 0 {
		runs += fmt.Sprintf(" (%d unsupported)", b.unsupported)
	}
	errs := thousands(float64(b.errors))
	if b.answered == 0 {
		return []string{b.name, runs, "none answered", "", "", "", "", "", errs, b.checkedText()}
	}
	return []string{b.name, runs, figure(b.count, thousands), figure(b.qps, qpsText),
		figure(b.p50, ms), figure(b.p90, ms), figure(b.p99, ms), figure(b.maxMs, ms), errs, b.checkedText()}
}

// csvRow is the row's values after the group keys: plain numbers, or the
// reason there are none ("unsupported", "none answered", "not checked").
func (b *benchRow) csvRow() []string {
	runs := strconv.Itoa(b.runs)
	if b.unsupported == b.runs {
		row := []string{b.name, runs}
		for range csvBenchColumns[2:] {
			row = append(row, "unsupported")
		}
		return row
	}
	checked, wrong := strconv.FormatInt(b.checked, 10), strconv.FormatInt(b.wrong, 10)
	if b.unchecked == b.runs-b.unsupported {
		checked, wrong = "not checked", "not checked"
	}
	errs := strconv.FormatInt(b.errors, 10)
	if b.answered == 0 {
		row := []string{b.name, runs}
		for range csvBenchColumns[2:12] {
			row = append(row, "none answered")
		}
		return append(row, errs, checked, wrong)
	}
	qps, p99 := spreadOf(b.qps), spreadOf(b.p99)
	return []string{b.name, runs, plain(spreadOf(b.count).Median),
		qpsText(qps.Median), qpsText(qps.Min), qpsText(qps.Max),
		ms(spreadOf(b.p50).Median), ms(spreadOf(b.p90).Median), ms(p99.Median), ms(p99.Min), ms(p99.Max),
		ms(spreadOf(b.maxMs).Median), errs, checked, wrong}
}

// qpsText is queries per second: one decimal below 100, whole above.
func qpsText(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return thousands(v)
}

// queryBenchNotes says, per cell, the query set its runs ran (once when
// they share it), --check=false, and each run's first wrong answer and
// first error.
func (t *Table) queryBenchNotes() []string {
	var notes []string
	for i := range t.Cells {
		c := &t.Cells[i]
		var sets, names []string
		var extra []string
		for _, r := range c.Runs {
			qb := r.QueryBench
			if qb == nil {
				continue
			}
			names = append(names, runName(r))
			set := fmt.Sprintf("query set %s (%s, seed %d, scale %d) on %d connections", qb.File, qb.UseCase, qb.Seed, qb.Scale, qb.Workers)
			if qb.Rate > 0 {
				set += fmt.Sprintf(" at %s queries/s", thousands(qb.Rate))
			}
			set += fmt.Sprintf(", %d warm-up queries", qb.Warmup)
			if qb.Note != "" {
				set += "; " + qb.Note
			}
			if !slices.Contains(sets, set) {
				sets = append(sets, set)
			}
			if len(qb.Wrong) > 0 {
				extra = append(extra, runName(r)+": first wrong answer: "+qb.Wrong[0])
			}
			if len(qb.Errors) > 0 {
				extra = append(extra, runName(r)+": first error: "+qb.Errors[0])
			}
		}
		if len(names) == 0 {
			continue
		}
		n := strings.Join(c.Key, ", ") + " (" + strings.Join(names, ", ") + "): " + strings.Join(sets, "; ")
		notes = append(notes, strings.Join(append([]string{n}, extra...), "; "))
	}
	return notes
}

// writeQueryBenchMD writes the per-query-type table and its notes.
func (t *Table) writeQueryBenchMD(b *strings.Builder) {
	// The query type is a key: left-aligned like the group keys.
	var head, sep []string
	for _, k := range t.Keys {
		head, sep = append(head, GroupKeys[k]), append(sep, "---")
	}
	head, sep = append(head, benchColumns[0]), append(sep, "---")
	for _, c := range benchColumns[1:] {
		head, sep = append(head, c), append(sep, "---:")
	}
	b.WriteString("\n")
	writeMDRow(b, head)
	writeMDRow(b, sep)
	for _, r := range t.queryBenchRows() {
		writeMDRow(b, append(append([]string(nil), r.key...), r.markdownRow()...))
	}
	b.WriteString("\n" + benchLegend + "\n\n")
	for _, n := range t.queryBenchNotes() {
		b.WriteString("- " + mdEscape(n) + "\n")
	}
}

// writeQueryBenchCSV writes the per-query-type table after an empty line,
// with its own header row.
func (t *Table) writeQueryBenchCSV(cw *csv.Writer) error {
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	// An empty record is a bare line end: the two tables' separator.
	if err := cw.Write(nil); err != nil {
		return err
	}
	if err := cw.Write(append(append([]string(nil), t.Keys...), csvBenchColumns...)); err != nil {
		return err
	}
	for _, r := range t.queryBenchRows() {
		if err := cw.Write(append(append([]string(nil), r.key...), r.csvRow()...)); err != nil {
			return err
		}
	}
	return nil
}

// htmlBench is the HTML page's query benchmark section.
type htmlBench struct {
	Heads  []string
	Rows   []htmlCell
	Legend string
	Notes  []string
	Charts []template.HTML
}

// benchHTML is t's query benchmark section, nil when no run ran a query set.
func benchHTML(t *Table) *htmlBench {
	if !t.hasQueryBench() {
		return nil
	}
	h := &htmlBench{Heads: benchColumns[1:], Legend: benchLegend, Notes: t.queryBenchNotes()}
	for _, r := range t.queryBenchRows() {
		v := r.markdownRow()
		h.Rows = append(h.Rows, htmlCell{Key: append(append([]string(nil), r.key...), v[0]), Values: v[1:], OK: true})
	}
	if svg := QueryBenchSVG(t); svg != "" {
		h.Charts = []template.HTML{template.HTML(svg)}
	}
	return h
}

// QueryBenchSVG is the HTML page's chart of the query benchmark: per query
// type (x axis) one bar per cell (target, ...) at the median p50, with a
// whisker up to the median p99; a type the target declared unsupported, or
// that had no answer, is written in red where its bar would be. "" when no
// run ran a query set.
func QueryBenchSVG(t *Table) string {
	rows := t.queryBenchRows()
	if len(rows) == 0 {
		return ""
	}
	var types, cells []string
	ti, ci := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if _, ok := ti[r.name]; !ok {
			ti[r.name] = len(types)
			types = append(types, r.name)
		}
		k := strings.Join(r.key, ", ")
		if _, ok := ci[k]; !ok {
			ci[k] = len(cells)
			cells = append(cells, k)
		}
	}
	maxV := 0.0
	for _, r := range rows {
		if r.answered > 0 {
			maxV = max(maxV, spreadOf(r.p99).Median)
		}
	}
	title := "Query latency per query type (bar: p50, whisker: p99, ms; medians across runs)"
	var s svgBuilder
	y := s.header(title, "")
	var items []legendItem
	for i, c := range cells {
		items = append(items, legendItem{c, palette[i%len(palette)], "bar"})
	}
	y = s.legend(items, y)
	yMax, step := niceScale(maxV*1.05, 5)
	left := chartPad + labelSize*1.6 + yTickWidth(yMax, step) + 8
	widest := 0.0
	for _, x := range types {
		widest = max(widest, fontWidth(x, labelSize, false))
	}
	// The type names are turned 40° (ending under their bars); the first
	// may need a wider left margin.
	cos40, sin40 := math.Cos(40*math.Pi/180), math.Sin(40*math.Pi/180)
	slot := (chartWidth - chartPad - left) / float64(len(types))
	left = max(left, chartPad+fontWidth(types[0], labelSize, false)*cos40+labelSize*sin40-slot/2)
	f := frame{left: left, top: y + 8, width: chartWidth - chartPad - left, height: plotHeight0, xMax: float64(len(types)), yMax: yMax}
	slot = f.width / float64(len(types))
	barW := slot * 0.8 / float64(len(cells))
	bottom := f.top + f.height + 6 + widest*sin40 + labelSize + 4 + labelSize*1.6 + chartPad
	s.yAxis(f, step, "ms")
	for i, x := range types {
		cx := f.left + slot*(float64(i)+0.5)
		ly := f.top + f.height + 6 + labelSize
		fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="end" transform="rotate(-40 %s %s)" class="tick">%s</text>`+"\n",
			num(cx), num(ly), num(labelSize), num(cx), num(ly), html.EscapeString(x))
	}
	for _, r := range rows {
		g := ci[strings.Join(r.key, ", ")]
		cx := f.left + slot*(float64(ti[r.name])+0.5)
		bx := cx + (float64(g)-float64(len(cells))/2)*barW
		mid := bx + barW/2
		if r.answered == 0 {
			why := "none answered"
			if r.unsupported == r.runs {
				why = "unsupported"
			}
			py := f.top + f.height - 4
			fmt.Fprintf(&s.b, `<text x="%s" y="%s" font-size="%s" text-anchor="start" fill="#c00000" transform="rotate(-90 %s %s)" class="status">%s</text>`+"\n",
				num(mid+4), num(py), num(tickSize), num(mid+4), num(py), html.EscapeString(why))
			continue
		}
		p50, p99 := spreadOf(r.p50).Median, spreadOf(r.p99).Median
		top := f.y(p50)
		s.rect(bx+1, top, barW-2, f.y(0)-top, fmt.Sprintf(`fill="%s" class="bar"`, palette[g%len(palette)]))
		capW := min(barW*0.4, 14) / 2
		s.line(mid, top, mid, f.y(p99), `stroke="#222" stroke-width="1.5" class="whisker"`)
		s.line(mid-capW, f.y(p99), mid+capW, f.y(p99), `stroke="#222" stroke-width="1.5"`)
	}
	s.line(f.left, f.y(0), f.left+f.width, f.y(0), `stroke="#333" stroke-width="1"`)
	s.text(f.left+f.width/2, bottom-chartPad-labelSize*0.3, labelSize, "middle", ` class="axis-title"`, "query type")
	return s.finish(bottom, title)
}
