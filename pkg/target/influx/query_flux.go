package influx

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Queries on InfluxDB 2.x: a query.Query becomes one Flux script (flux),
// posted to /api/v2/query, whose CSV answer is read back as rows. Every
// script starts by reading the window (range is start <= _time < stop)
// of the measurement, the asked fields (and the threshold's) and the tag
// values, in one filter the storage applies:
//
//	from(bucket: "b") |> range(start: S, stop: E)
//	  |> filter(fn: (r) => r._measurement == "m" and (r._field == "f" or ...) and (r["tag"] == "x" or ...))
//
// Max, Min, Avg and Count without a threshold aggregate each field's
// values per group (the GroupBy tags and _field), per bucket or over the
// window; aggregateWindow's windows are aligned to the epoch and, with
// timeSrc "_start" and createEmpty false, named by their start (the first
// one clipped to the window's start: the row's bucket is read from its
// time) with no row for an empty window:
//
//	|> group(columns: ["g", "_field"])
//	|> aggregateWindow(every: b, fn: max|min|mean|count, timeSrc: "_start", createEmpty: false)   or  |> max() ...
//	|> sort(columns: ["_time"], desc: true) |> limit(n: N)          (newest N buckets)
//
// The rows of each group and bucket are put together from the fields'
// answers (a field without a value there is NULL, a count of 0).
//
// Last without a threshold asks each series' newest value of each field
// (|> last(), per bucket after |> window(every: b)), which the storage
// answers without reading the window; the loader takes per group and
// bucket the newest time among them and that series' values at that time
// (NULL where the newest row lacks a field).
//
// Rows, Last with a threshold and an aggregate with one need the fields
// of a row side by side: the
// points are pivoted into rows (one per series and time; only rows with
// an asked field set exist, as query.Eval reads them), then
//
//	|> filter(fn: (r) => exists r["t"] and r["t"] > v)               (threshold)
//	|> group() |> sort(columns: ["_time"], desc: true) |> limit(n: N)   (Rows, newest N)
//	|> group(columns: ["g"]) |> sort(columns: ["_time"]) |> last(column: "_time")   (Last: the newest row kept)
//	|> group(columns: ["g"]) |> window(every: b) |> ... |> last(column: "_time")    (Last per bucket)
//
// and an aggregate over rows kept by a threshold takes each field from
// the rows back to one stream per field (rename to _value, set _field),
// then aggregates as above.

// ask states qy in Flux, runs it over p and reads the answer.
func (apiV2) ask(ctx context.Context, t *Target, p *httpwrite.Poster, qy *query.Query) (*query.Answer, error) {
	script, err := flux(qy, t.cfg.bucket())
	if err != nil {
		return nil, err
	}
	body, err := t.postFlux(ctx, p, script)
	if err != nil {
		return nil, fmt.Errorf("influx: query %s: %w", qy.Name, err)
	}
	ans, err := readFlux(body, qy)
	if err != nil {
		return nil, fmt.Errorf("influx: query %s: %w\n%s", qy.Name, err, script)
	}
	return ans, nil
}

// postFlux runs a Flux script over p (/api/v2/query, in the configured
// organization) and returns its CSV answer: a header per table, no
// annotations (valid until p's next post).
func (t *Target) postFlux(ctx context.Context, p *httpwrite.Poster, script string) ([]byte, error) {
	body, err := json.Marshal(map[string]any{
		"query": script, "type": "flux",
		"dialect": map[string]any{"header": true, "annotations": []string{}, "delimiter": ","},
	})
	if err != nil {
		return nil, err
	}
	res, err := p.Post(ctx, httpwrite.Request{Path: "/api/v2/query", Query: url.Values{"org": {t.cfg.Org}}.Encode(),
		ContentType: "application/json", Accept: "application/csv", Body: body, NoCompress: true})
	if err != nil {
		return nil, err
	}
	switch {
	case res.Status != 200:
		return nil, fmt.Errorf("%s answered %d to the Flux query: %s", p.BaseURL(), res.Status, v2Message(res.Body))
	case res.Truncated:
		return nil, errors.New("the Flux answer is longer than the loader reads")
	}
	return res.Body, nil
}

// flux states q as a Flux script over bucket.
func flux(q *query.Query, bucket string) (string, error) {
	if err := q.Validate(); err != nil {
		return "", err
	}
	if q.Staged() {
		// A threshold on aggregated rows and a second aggregation over
		// them (query.Having, query.Rollup) are not said in Flux here.
		return "", fmt.Errorf("query %s: a having or rollup stage: %w", q.Name, errors.ErrUnsupported)
	}
	var b strings.Builder
	fields := q.Fields
	if f := q.Filter; f != nil && !contains(fields, f.Field) {
		fields = append(fields[:len(fields):len(fields)], f.Field)
	}
	b.WriteString("from(bucket: " + fluxString(bucket) + ")\n")
	b.WriteString("  |> range(start: " + fluxTime(q.Start) + ", stop: " + fluxTime(q.End) + ")\n")
	b.WriteString("  |> filter(fn: (r) => r._measurement == " + fluxString(q.Table))
	b.WriteString(" and " + fluxAny("_field", fields))
	for _, m := range q.Where {
		b.WriteString(" and " + fluxAny(m.Tag, m.Values))
	}
	b.WriteString(")\n")
	groupBy := fluxList(q.GroupBy)
	aggFn := map[query.Agg]string{query.Max: "max", query.Min: "min", query.Avg: "mean", query.Count: "count"}[q.Agg]
	long := func(b *strings.Builder) {
		b.WriteString("  |> group(columns: " + fluxList(append(q.GroupBy[:len(q.GroupBy):len(q.GroupBy)], "_field")) + ")\n")
		if q.Bucket > 0 {
			b.WriteString("  |> aggregateWindow(every: " + influxDuration(q.Bucket) + ", fn: " + aggFn + `, timeSrc: "_start", createEmpty: false)` + "\n")
			if q.Limit > 0 {
				fmt.Fprintf(b, "  |> sort(columns: [\"_time\"], desc: true)\n  |> limit(n: %d)\n", q.Limit)
			}
		} else {
			b.WriteString("  |> " + aggFn + "()\n")
		}
		b.WriteString("  |> keep(columns: " + fluxList(append(q.GroupBy[:len(q.GroupBy):len(q.GroupBy)], "_time", "_field", "_value")) + ")\n")
	}
	if q.Filter == nil && aggFn != "" {
		long(&b)
		return b.String(), nil
	}
	if q.Filter == nil && q.Agg == query.Last {
		// Each series' newest value of each field (the storage answers
		// last() without reading the window); the loader picks the
		// group's newest row from them.
		if q.Bucket > 0 {
			b.WriteString("  |> window(every: " + influxDuration(q.Bucket) + ")\n")
		}
		b.WriteString("  |> last()\n")
		return b.String(), nil
	}
	b.WriteString("  |> pivot(rowKey: [\"_time\"], columnKey: [\"_field\"], valueColumn: \"_value\")\n")
	if f := q.Filter; f != nil {
		cmp, err := comparison(q)
		if err != nil {
			return "", err
		}
		col := "r[" + fluxString(f.Field) + "]"
		b.WriteString("  |> filter(fn: (r) => exists " + col + " and " + col + cmp + ")\n")
		if !contains(q.Fields, f.Field) {
			var or []string
			for _, f := range q.Fields {
				or = append(or, "exists r["+fluxString(f)+"]")
			}
			b.WriteString("  |> filter(fn: (r) => " + strings.Join(or, " or ") + ")\n")
		}
	}
	keep := fluxList(append(append(q.GroupBy[:len(q.GroupBy):len(q.GroupBy)], "_time"), q.Fields...))
	switch q.Agg {
	case query.Rows:
		if q.Limit > 0 {
			fmt.Fprintf(&b, "  |> group()\n  |> sort(columns: [\"_time\"], desc: true)\n  |> limit(n: %d)\n", q.Limit)
		}
		b.WriteString("  |> keep(columns: " + keep + ")\n")
	case query.Last:
		b.WriteString("  |> group(columns: " + groupBy + ")\n")
		if q.Bucket > 0 {
			b.WriteString("  |> window(every: " + influxDuration(q.Bucket) + ")\n")
		}
		b.WriteString("  |> sort(columns: [\"_time\"])\n  |> last(column: \"_time\")\n")
		if q.Bucket > 0 {
			b.WriteString("  |> group(columns: " + groupBy + ")\n")
			if q.Limit > 0 {
				fmt.Fprintf(&b, "  |> sort(columns: [\"_time\"], desc: true)\n  |> limit(n: %d)\n", q.Limit)
			}
		}
		b.WriteString("  |> keep(columns: " + keep + ")\n")
	default:
		// An aggregate over the rows the threshold kept: each field back
		// to a stream of its own values.
		var s strings.Builder
		s.WriteString("kept = " + b.String() + "\n")
		var each []string
		for _, f := range q.Fields {
			c := fluxString(f)
			each = append(each, "kept |> filter(fn: (r) => exists r["+c+"]) |> keep(columns: "+fluxList(append(q.GroupBy[:len(q.GroupBy):len(q.GroupBy)], "_time", f))+
				") |> rename(columns: {"+c+": \"_value\"}) |> set(key: \"_field\", value: "+c+")")
		}
		if len(each) == 1 {
			s.WriteString(each[0] + "\n")
		} else {
			s.WriteString("union(tables: [\n    " + strings.Join(each, ",\n    ") + ",\n  ])\n")
		}
		long(&s)
		return s.String(), nil
	}
	return b.String(), nil
}

// fluxTime is t as a Flux time literal.
func fluxTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// fluxAny is "(r[col] == v0 or r[col] == v1 ...)".
func fluxAny(col string, values []string) string {
	if len(values) == 0 {
		return "false"
	}
	var or []string
	for _, v := range values {
		or = append(or, "r["+fluxString(col)+"] == "+fluxString(v))
	}
	return "(" + strings.Join(or, " or ") + ")"
}

// fluxList is a Flux array of strings.
func fluxList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fluxString(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// fluxReader reads a Flux CSV answer (a header per table, no
// annotations) row by row, each with its table's columns.
type fluxReader struct {
	r    *csv.Reader
	body []byte
	cols map[string]int // the current table's columns by name
	rec  []string       // the current row
}

func newFluxReader(body []byte) *fluxReader {
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	return &fluxReader{r: r, body: body}
}

// next reads the next row; header tells that a table's header came
// before it (cols are then that table's). After the last row it returns
// io.EOF; a table of Flux's errors and a row before any header are
// errors.
func (f *fluxReader) next() (header bool, err error) {
	for {
		rec, err := f.r.Read()
		if errors.Is(err, io.EOF) {
			return false, io.EOF
		}
		if err != nil {
			return false, fmt.Errorf("reading the Flux answer: %v (%s)", err, httpwrite.Snippet(f.body, 200))
		}
		if len(rec) > 1 && (rec[1] == "result" || rec[1] == "error") {
			if rec[1] == "error" {
				msg, _ := f.r.Read()
				return false, fmt.Errorf("flux error: %s", strings.Join(msg, " "))
			}
			f.cols = map[string]int{}
			for i, c := range rec {
				f.cols[c] = i
			}
			header = true
			continue
		}
		if f.cols == nil {
			return false, fmt.Errorf("a row before any header: %s", httpwrite.Snippet(f.body, 200))
		}
		f.rec = rec
		return header, nil
	}
}

// get is column c of the current row, and whether its table has c.
func (f *fluxReader) get(c string) (string, bool) {
	if i, ok := f.cols[c]; ok && i < len(f.rec) {
		return f.rec[i], true
	}
	return "", false
}

// readFlux reads the CSV answer (a header per table, no annotations) of
// flux(q) as an Answer: rows either long (_field, _value) or pivoted (one
// column per field).
func readFlux(body []byte, q *query.Query) (*query.Answer, error) {
	f := newFluxReader(body)
	type key struct{ group, time string }
	index := map[key]int{} // long rows: where each group and time went
	ans := &query.Answer{}
	var tags []string // the header's columns other than Flux's own: a series' tags
	// Last without a threshold: each series' newest value of each field,
	// per group and bucket.
	newest := q.Agg == query.Last && q.Filter == nil
	type candidate struct {
		series string
		at     time.Time
		field  int
		value  float64
	}
	cands := map[key][]candidate{}
	var order []key
	for {
		header, err := f.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if header {
			tags = tags[:0]
			for c := range f.cols {
				switch c {
				case "", "result", "table", "_start", "_stop", "_time", "_value", "_field", "_measurement":
				default:
					tags = append(tags, c)
				}
			}
			slices.Sort(tags)
		}
		get := f.get
		var group []string
		for _, g := range q.GroupBy {
			v, _ := get(g)
			group = append(group, v)
		}
		var at, raw time.Time
		if s, ok := get("_time"); ok && s != "" {
			if raw, err = time.Parse(time.RFC3339Nano, s); err != nil {
				return nil, fmt.Errorf("_time %q: %v", s, err)
			}
			raw = raw.UTC()
			at = rowTime(q, raw)
		} else if q.Bucket > 0 || q.Agg == query.Rows || q.Agg == query.Last {
			return nil, fmt.Errorf("a row without a time: %s", httpwrite.Snippet(body, 200))
		}
		if field, ok := get("_field"); ok {
			i := slices.Index(q.Fields, field)
			if i < 0 {
				return nil, fmt.Errorf("an answer for field %q, which was not asked", field)
			}
			k := key{strings.Join(group, "\x00"), at.Format(time.RFC3339Nano)}
			if newest {
				if q.Bucket == 0 {
					at = time.Time{} // one row per group, timed below
					k.time = ""
				}
				var series strings.Builder
				for _, c := range tags {
					v, _ := get(c)
					series.WriteString(c + "=" + v + "\x00")
				}
				val, _ := get("_value")
				v, err := fluxFloat(val)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", field, err)
				}
				if _, ok := cands[k]; !ok {
					order = append(order, k)
					ans.Rows = append(ans.Rows, query.Row{Group: group, Time: at, Values: nulls(q)})
				}
				cands[k] = append(cands[k], candidate{series.String(), raw, i, v})
				continue
			}
			j, seen := index[k]
			if !seen {
				j = len(ans.Rows)
				index[k] = j
				ans.Rows = append(ans.Rows, query.Row{Group: group, Time: at, Values: nulls(q)})
			}
			s, _ := get("_value")
			if ans.Rows[j].Values[i], err = fluxFloat(s); err != nil {
				return nil, fmt.Errorf("%s: %v", field, err)
			}
			continue
		}
		row := query.Row{Group: group, Time: at, Values: nulls(q)}
		for i, f := range q.Fields {
			s, _ := get(f)
			if row.Values[i], err = fluxFloat(s); err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
		}
		ans.Rows = append(ans.Rows, row)
	}
	if newest {
		// The group's newest row: the newest time of any field of any
		// series, and that series' fields at that time (NULL where the
		// row lacks one).
		for j, k := range order {
			var top candidate
			for _, c := range cands[k] {
				if c.at.After(top.at) || top.series == "" {
					top = c
				}
			}
			for _, c := range cands[k] {
				if c.series == top.series && c.at.Equal(top.at) {
					ans.Rows[j].Values[c.field] = c.value
				}
			}
			if q.Bucket == 0 {
				ans.Rows[j].Time = top.at
			}
		}
	}
	if q.Agg == query.Count {
		for _, row := range ans.Rows {
			for i, v := range row.Values {
				if math.IsNaN(v) {
					row.Values[i] = 0
				}
			}
		}
	}
	if q.Limit > 0 && q.Bucket > 0 {
		ans.Rows = query.NewestPerGroup(ans.Rows, q.Limit)
	}
	return ans, nil
}

func nulls(q *query.Query) []float64 {
	v := make([]float64, len(q.Fields))
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// fluxFloat reads a Flux CSV value: empty is NULL (NaN), true and false
// 1 and 0.
func fluxFloat(s string) (float64, error) {
	switch s {
	case "":
		return math.NaN(), nil
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	return strconv.ParseFloat(s, 64)
}
