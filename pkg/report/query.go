package report

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot/plotter"

	"github.com/tsload/tsload/pkg/results"
)

// Runs with a query load beside the writers (load_* --query-rate;
// docs/query-load.md) carry Results.Queries and the query types answered per
// period: the table adds the queries' p50 and p99 latency from their due
// time (medians across runs) and the wrong answers (summed over every
// run, a failed one included: a wrong answer fails its run); the HTML
// page draws each type's p99 per period under the run's rate chart.

// Columns of a table whose runs include a query load.
var (
	queryColumns    = []string{"query p50 ms", "query p99 ms", "wrong answers"}
	csvQueryColumns = []string{"query_p50_ms", "query_p99_ms", "query_wrong"}
)

// queryLegend explains the query columns under a Markdown table.
const queryLegend = "query p50 ms, query p99 ms: queries run beside the load (--query-rate), latency from each query's due time over every type, medians across runs; wrong answers: answers that differed from what the loaded rows hold, over every run (docs/query-load.md)."

// hasQueries reports whether some run of t ran queries.
func (t *Table) hasQueries() bool {
	for i := range t.Cells {
		for _, r := range t.Cells[i].Runs {
			if r.Queries != nil {
				return true
			}
		}
	}
	return false
}

// queryRow is the cell's query columns, formatted with f (thousands or
// plain) for the wrong answers.
func (c *Cell) queryRow(f func(float64) string) []string {
	var p50, p99 []float64
	var wrong int64
	ran := false
	for _, r := range c.Runs {
		if r.Queries == nil {
			continue
		}
		ran = true
		wrong += r.Queries.All.Wrong
		if r.Status == results.StatusOK && r.Queries.All.Count > 0 {
			p50 = append(p50, r.Queries.All.LatencyFromDue.P50)
			p99 = append(p99, r.Queries.All.LatencyFromDue.P99)
		}
	}
	switch {
	case !ran:
		return []string{"no queries", "", ""}
	case !c.OK():
		return []string{c.Status, c.Status, f(float64(wrong))}
	case len(p50) == 0:
		return []string{"none answered", "", f(float64(wrong))}
	}
	return []string{ms(spreadOf(p50).Median), ms(spreadOf(p99).Median), f(float64(wrong))}
}

// querySeries is each query type's p99 from due per period.
func querySeries(r Run) []timeSeries {
	if r.Queries == nil {
		return nil
	}
	series := make([]timeSeries, len(r.Queries.Types))
	for i, t := range r.Queries.Types {
		series[i].name = t.Name + " p99"
	}
	for _, p := range r.Periods {
		if !finite(p.At) || !finite(p.Seconds) {
			continue
		}
		x := p.At - p.Seconds/2
		for i, t := range p.Queries {
			if i < len(series) && t.Count > 0 && finite(t.LatencyFromDue.P99) {
				series[i].pts = append(series[i].pts, plotter.XY{X: x, Y: t.LatencyFromDue.P99})
			}
		}
	}
	return series
}

// QuerySVG is the HTML page's chart of a run's query latency per period
// (each type's p99 from due), "" for a run without queries.
func QuerySVG(r Run) string {
	q := r.Queries
	if q == nil {
		return ""
	}
	a := q.All
	sub := fmt.Sprintf("%s: %s queries/s offered on %d connections, %s answered, %s dropped; from due p50 %.1f, p99 %.1f ms; %s checked, %s wrong",
		runName(r), thousands(q.Rate), q.Workers, thousands(float64(a.Count)), thousands(float64(q.Dropped)),
		a.LatencyFromDue.P50, a.LatencyFromDue.P99, strconv.FormatInt(a.Checked, 10), strconv.FormatInt(a.Wrong, 10))
	return seriesSVG(paceTitle(r)+": query latency per period, p99 from due, ms", sub, "ms", querySeries(r), r.Seconds)
}
