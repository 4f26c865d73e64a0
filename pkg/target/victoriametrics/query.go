package victoriametrics

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Queries on VictoriaMetrics. A row's field f is a sample of the metric
// <table>_f whose labels are the row's tags and db, at the row's
// millisecond; a query.Query becomes MetricsQL over those metrics, one
// expression per field, or an export of the samples for Rows.
//
// Before each query the querier asks /internal/force_flush (samples
// written become searchable after up to a second otherwise: a query over
// rows already acknowledged would miss some) and every request carries
// nocache=1 (the server caches range answers) and latency_offset=1ms (a
// range answer otherwise leaves out the points of the last 30 s, the
// server's -search.latencyOffset: rows timed now would be missing).
//
// Windows. A rollup function at time t reads the samples in (t-w, t]:
// left-open, right-closed, where a bucket is [start, start+b). With
// millisecond samples, "f(s[w] offset 1ms)" at t reads (t-1ms-w, t-1ms] =
// [t-w, t), so each bucket [B, B+b) is evaluated at B+b with w = b: the
// full buckets in one /api/v1/query_range (start and end multiples of the
// step, as the server may align them), a bucket the window cuts (its
// first or last) or that ends after now on its own /api/v1/query; without
// buckets, one /api/v1/query at the window's end with w its width.
//
//	Max    max by (g) (max_over_time(s[w] offset 1ms))
//	Min    min by (g) (min_over_time(s[w] offset 1ms))
//	Count  sum by (g) (count_over_time(s[w] offset 1ms))
//	Avg    sum by (g) (sum_over_time(s[w] offset 1ms)) / sum by (g) (count_over_time(s[w] offset 1ms))
//	Last   time:  max by (g) (tlast_over_time({__name__=~"t_(f|...)", ...}[w] offset 1ms) keep_metric_names)
//	       value: last_over_time(s[w] offset 1ms)
//	                and (tlast_over_time(s[w] offset 1ms) == on(g) group_left <time>)
//
// s is {__name__="t_f", db="d", tag=~"x|y"} (regular expressions are
// anchored). Last's time is the group's newest sample of any asked field
// (the newest row with one of them set); a field's value is its last
// sample when that is at the group's newest time, and NULL when the
// newest row lacks the field. The newest N buckets are the last N the
// range query answers per group (the server has no per-group limit).
//
// Rows: VictoriaMetrics has no row read. The samples of the asked fields
// (and the threshold's) in the window come from /api/v1/export and are
// put together into rows by series and millisecond in the loader, which
// also applies the threshold and keeps the newest N.
//
// A threshold on the one field aggregated is said by the rollups that
// count and sum samples beyond a value (sameField): Count and Avg above
// (count_gt_over_time, sum_gt_over_time) and below (the _le_ ones less
// the _eq_ ones), Max above and Min below (the plain extreme, when it
// passes). Refused (errors.ErrUnsupported): any other threshold with an
// aggregate. A threshold on another field keeps rows by another sample
// of the same millisecond, and MetricsQL compares series at evaluation
// times, not samples: a subquery at a 1 ms step would read each sample at
// many steps (the lookbehind of an instant selector is stretched to the
// scrape interval), so no exact MetricsQL says it; Max below, Min above
// and Last of the samples beyond a value have no rollup.

// vmQuerier answers queries over a connection of its own (load.Querier).
type vmQuerier struct {
	t *Target
	p *httpwrite.Poster
}

// NewQuerier opens query connection n (load.Hooks.NewQuerier): it talks
// to URL n % len(URLs).
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	return &vmQuerier{t: t, p: t.client.NewPoster(n)}, nil
}

func (q *vmQuerier) Close() error { return nil }

// Query states qy in MetricsQL (or as an export), runs it and reads the
// answer.
func (q *vmQuerier) Query(ctx context.Context, qy *query.Query) (*query.Answer, error) {
	plan, err := metricsQL(qy, q.t.cfg.DBName, time.Now())
	if err != nil {
		return nil, err
	}
	if err := q.flush(ctx); err != nil {
		return nil, err
	}
	if qy.Agg == query.Rows {
		return q.rows(ctx, qy, plan)
	}
	ans := &query.Answer{}
	rows := map[string]*query.Row{}
	var order []string
	row := func(group []string, at time.Time) *query.Row {
		k := strings.Join(group, "\x00") + "\x00" + at.Format(time.RFC3339Nano)
		r := rows[k]
		if r == nil {
			r = &query.Row{Group: group, Time: at, Values: make([]float64, len(qy.Fields))}
			for i := range r.Values {
				r.Values[i] = math.NaN()
				if qy.Agg == query.Count {
					r.Values[i] = 0
				}
			}
			rows[k] = r
			order = append(order, k)
		}
		return r
	}
	for _, sp := range plan.spans {
		// Last: the group's time first, so that a row exists for every
		// group and bucket with a row, whatever its fields.
		if plan.lastTime != "" {
			pts, err := q.eval(ctx, sp, plan.lastTime)
			if err != nil {
				return nil, fmt.Errorf("victoriametrics: query %s: %w", qy.Name, err)
			}
			for _, p := range pts {
				r := row(groupOf(qy, p.labels), p.bucket)
				if qy.Bucket == 0 {
					r.Time = time.UnixMilli(int64(math.Round(p.value * 1000))).UTC()
				}
			}
		}
		for i, expr := range plan.exprs {
			pts, err := q.eval(ctx, sp, expr)
			if err != nil {
				return nil, fmt.Errorf("victoriametrics: query %s: %w", qy.Name, err)
			}
			for _, p := range pts {
				g := groupOf(qy, p.labels)
				if plan.lastTime != "" {
					k := strings.Join(g, "\x00") + "\x00" + p.bucket.Format(time.RFC3339Nano)
					if rows[k] == nil {
						return nil, fmt.Errorf("victoriametrics: query %s: %s has a value for group %q at %s but no newest time", qy.Name, qy.Fields[i], g, p.bucket.Format(time.RFC3339))
					}
				}
				row(g, p.bucket).Values[i] = p.value
			}
		}
	}
	for _, k := range order {
		ans.Rows = append(ans.Rows, *rows[k])
	}
	if qy.Limit > 0 && qy.Bucket > 0 {
		ans.Rows = query.NewestPerGroup(ans.Rows, qy.Limit)
	}
	return ans, nil
}

// plan is a query in MetricsQL: expressions with {w} for the window,
// evaluated over spans.
type plan struct {
	exprs    []string // per field
	lastTime string   // Last: the group's newest time
	spans    []span
	export   string // Rows: the series selector of the samples
}

// span is one evaluation: the rows in [from, to) (milliseconds), in
// buckets of width step (0: one evaluation, the whole span); a bucket's
// start is its end less step, or at for a single evaluation.
type span struct {
	from, to, step int64
	at             time.Time
}

// metricsQL states q over the db label db, asked at now.
func metricsQL(q *query.Query, db string, now time.Time) (*plan, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if q.Staged() {
		// A threshold on aggregated rows and a second aggregation over
		// them (query.Having, query.Rollup) are not said in MetricsQL here.
		return nil, fmt.Errorf("query %s: a having or rollup stage: %w", q.Name, errors.ErrUnsupported)
	}
	for _, g := range q.GroupBy {
		if !labelName.MatchString(g) {
			return nil, fmt.Errorf("query %s: tag %q is not a label name MetricsQL can group by: %w", q.Name, g, errors.ErrUnsupported)
		}
	}
	var threshold string
	if f := q.Filter; f != nil && q.Agg != query.Rows {
		if len(q.Fields) != 1 || q.Fields[0] != f.Field {
			return nil, fmt.Errorf("query %s: MetricsQL cannot keep samples by another field's sample of the same millisecond: %w", q.Name, errors.ErrUnsupported)
		}
		switch {
		case q.Agg == query.Count, q.Agg == query.Avg, q.Agg == query.Max && !f.Below, q.Agg == query.Min && f.Below:
		default:
			return nil, fmt.Errorf("query %s: MetricsQL has no %s of the samples %s a value: %w", q.Name, q.Agg, map[bool]string{false: "above", true: "below"}[f.Below], errors.ErrUnsupported)
		}
		var err error
		if threshold, err = number(q, f.Value); err != nil {
			return nil, err
		}
	}
	from, to := ceilMs(q.Start), ceilMs(q.End)
	matchers := []string{"db=" + quote(db)}
	for _, m := range q.Where {
		switch len(m.Values) {
		case 1:
			matchers = append(matchers, m.Tag+"="+quote(m.Values[0]))
		default:
			alts := make([]string, len(m.Values))
			for i, v := range m.Values {
				alts[i] = regexp.QuoteMeta(v)
			}
			if len(alts) == 0 { // no value: no series
				matchers = append(matchers, m.Tag+`=""`, m.Tag+`!=""`)
				continue
			}
			matchers = append(matchers, m.Tag+"=~"+quote(strings.Join(alts, "|")))
		}
		if !labelName.MatchString(m.Tag) {
			return nil, fmt.Errorf("query %s: tag %q is not a label name MetricsQL can match: %w", q.Name, m.Tag, errors.ErrUnsupported)
		}
	}
	names := func(fields []string) string {
		alts := make([]string, len(fields))
		for i, f := range fields {
			alts[i] = regexp.QuoteMeta(q.Table + "_" + f)
		}
		return "__name__=~" + quote(strings.Join(alts, "|"))
	}
	p := &plan{}
	if q.Agg == query.Rows {
		fields := q.Fields
		if f := q.Filter; f != nil && !slices.Contains(fields, f.Field) {
			fields = append(fields[:len(fields):len(fields)], f.Field)
		}
		p.export = "{" + strings.Join(append([]string{names(fields)}, matchers...), ",") + "}"
		p.spans = []span{{from: from, to: to}}
		return p, nil
	}
	by := ""
	if len(q.GroupBy) > 0 {
		by = " by (" + strings.Join(q.GroupBy, ", ") + ")"
	}
	on := "on(" + strings.Join(q.GroupBy, ", ") + ")"
	sel := func(f string) string {
		return "{" + strings.Join(append([]string{"__name__=" + quote(q.Table+"_"+f)}, matchers...), ",") + "}[{w}] offset 1ms"
	}
	if q.Agg == query.Last {
		all := "{" + strings.Join(append([]string{names(q.Fields)}, matchers...), ",") + "}[{w}] offset 1ms"
		p.lastTime = "max" + by + " (tlast_over_time(" + all + ") keep_metric_names)"
	}
	for _, f := range q.Fields {
		s := sel(f)
		var e string
		switch {
		case threshold != "":
			e = sameField(q.Agg, q.Filter.Below, by, s, threshold)
		case q.Agg == query.Max:
			e = "max" + by + " (max_over_time(" + s + "))"
		case q.Agg == query.Min:
			e = "min" + by + " (min_over_time(" + s + "))"
		case q.Agg == query.Count:
			e = "sum" + by + " (count_over_time(" + s + "))"
		case q.Agg == query.Avg:
			e = "sum" + by + " (sum_over_time(" + s + ")) / sum" + by + " (count_over_time(" + s + "))"
		case q.Agg == query.Last:
			e = "last_over_time(" + s + ") and (tlast_over_time(" + s + ") == " + on + " group_left " + p.lastTime + ")"
		}
		p.exprs = append(p.exprs, e)
	}
	p.spans = spans(from, to, q.Bucket, now.UnixMilli())
	return p, nil
}

// sameField is the expression of agg over the samples of one field
// above (below: under) the threshold v, s the field's selector and
// window, by the grouping: the rollups that count and sum the samples
// beyond a value, and Max above or Min below as the plain extreme when it
// passes (then it is the extreme of the samples that pass). A group or
// bucket without a sample that passes has no row (the comparisons drop
// it), as query.Eval reads it.
func sameField(agg query.Agg, below bool, by, s, v string) string {
	count := "sum" + by + " (count_gt_over_time(" + s + ", " + v + "))"
	sum := "sum" + by + " (sum_gt_over_time(" + s + ", " + v + "))"
	if below {
		// <= v less == v: exact counts; the sum less v times the count of v.
		count = "sum" + by + " (count_le_over_time(" + s + ", " + v + ") - count_eq_over_time(" + s + ", " + v + "))"
		sum = "sum" + by + " (sum_le_over_time(" + s + ", " + v + ") - " + v + " * count_eq_over_time(" + s + ", " + v + "))"
	}
	switch agg {
	case query.Count:
		return "(" + count + ") > 0"
	case query.Avg:
		return sum + " / ((" + count + ") > 0)"
	case query.Max:
		return "max" + by + " (max_over_time(" + s + ")) > " + v
	}
	return "min" + by + " (min_over_time(" + s + ")) < " + v
}

// number is a threshold as a MetricsQL literal (decimal).
func number(q *query.Query, v float64) (string, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "", fmt.Errorf("query %s: threshold %g is not a number a database compares with", q.Name, v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64), nil
}

// labelName is what a label name in a by (...) clause or a matcher may be.
var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// spans divides [from, to) (milliseconds) into evaluations: without a
// bucket, one; with, the full buckets that end by now (milliseconds) as
// one range, and each bucket the window cuts or that ends after now on
// its own.
func spans(from, to int64, bucket time.Duration, now int64) []span {
	if bucket == 0 {
		return []span{{from: from, to: to}}
	}
	b := bucket.Milliseconds()
	floor := func(ms int64) int64 {
		r := ms % b
		if r < 0 {
			r += b
		}
		return ms - r
	}
	var out []span
	first := floor(from)
	if first != from { // the first bucket is cut
		end := min(first+b, to)
		out = append(out, span{from: from, to: end, at: time.UnixMilli(first).UTC()})
		from = end
	}
	last := floor(to)
	if last > from { // full buckets
		// A range query ending after now answers its last buckets wrong
		// (checked on v1.151.0: a bucket holding now had the maximum of
		// the bucket before): those ending after now are asked one by one.
		past := from
		if now >= from {
			past = min(last, from+(now-from)/b*b)
		}
		if past > from {
			out = append(out, span{from: from, to: past, step: b})
		}
		for s := past; s < last; s += b {
			out = append(out, span{from: s, to: s + b, at: time.UnixMilli(s).UTC()})
		}
	}
	if last < to && last >= from { // the last bucket is cut
		out = append(out, span{from: last, to: to, at: time.UnixMilli(last).UTC()})
	}
	return out
}

func ceilMs(t time.Time) int64 {
	ns := t.UnixNano()
	ms := ns / 1e6
	if ns%1e6 > 0 {
		ms++
	}
	return ms
}

// point is a value of an answer: its series' labels and its bucket.
type point struct {
	labels map[string]string
	bucket time.Time
	value  float64
}

// eval runs expr over sp ({w} its window) and returns its points.
func (q *vmQuerier) eval(ctx context.Context, sp span, expr string) ([]point, error) {
	// latency_offset: without it a range answer leaves out the points of
	// the last 30 s (-search.latencyOffset), which a load of rows timed
	// now has acknowledged; 1ms is the least the server takes.
	v := url.Values{"nocache": {"1"}, "latency_offset": {"1ms"}}
	path := "/api/v1/query"
	w := sp.to - sp.from
	if sp.step > 0 {
		w = sp.step
		path = "/api/v1/query_range"
		v.Set("start", msString(sp.from+sp.step))
		v.Set("end", msString(sp.to))
		v.Set("step", strconv.FormatInt(sp.step, 10)+"ms")
	} else {
		v.Set("time", msString(sp.to))
	}
	expr = strings.ReplaceAll(expr, "{w}", strconv.FormatInt(w, 10)+"ms")
	v.Set("query", expr)
	res, err := q.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: path, Query: v.Encode(), Accept: "application/json", NoCompress: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", expr, err)
	}
	if res.Status != 200 || res.Truncated {
		return nil, fmt.Errorf("%s: GET %s: %d %s (truncated %v)", expr, path, res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	pts, err := readPoints(res.Body, sp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", expr, err)
	}
	return pts, nil
}

// readPoints reads the answer of /api/v1/query or /api/v1/query_range
// over sp.
func readPoints(body []byte, sp span) ([]point, error) {
	var ans struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  []any             `json:"value"`
				Values [][]any           `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("unreadable answer: %v (%s)", err, httpwrite.Snippet(body, 200))
	}
	var out []point
	for _, r := range ans.Data.Result {
		vals := r.Values
		if r.Value != nil {
			vals = append(vals, r.Value)
		}
		for _, pair := range vals {
			if len(pair) != 2 {
				return nil, fmt.Errorf("a point of %d values", len(pair))
			}
			ts, ok1 := pair[0].(float64)
			s, ok2 := pair[1].(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("unreadable point %v", pair)
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("value %q: %v", s, err)
			}
			at := sp.at
			if sp.step > 0 {
				// Evaluated at the bucket's end.
				at = time.UnixMilli(int64(math.Round(ts*1000)) - sp.step).UTC()
			}
			out = append(out, point{labels: r.Metric, bucket: at, value: f})
		}
	}
	return out, nil
}

// msString is a time in milliseconds as the seconds the API takes.
func msString(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)
}

func groupOf(q *query.Query, labels map[string]string) []string {
	var g []string
	for _, tag := range q.GroupBy {
		g = append(g, labels[tag])
	}
	return g
}

// rows reads the samples of plan.export in the window and puts them
// together into q's rows.
func (q *vmQuerier) rows(ctx context.Context, qy *query.Query, p *plan) (*query.Answer, error) {
	sp := p.spans[0]
	v := url.Values{"match[]": {p.export}, "start": {msString(sp.from)}, "end": {msString(sp.to - 1)}, "nocache": {"1"}}
	res, err := q.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/api/v1/export", Query: v.Encode(), NoCompress: true})
	if err != nil {
		return nil, fmt.Errorf("victoriametrics: query %s: %w", qy.Name, err)
	}
	if res.Status != 200 || res.Truncated {
		return nil, fmt.Errorf("victoriametrics: query %s: GET /api/v1/export: %d %s (truncated %v)", qy.Name, res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	ans, err := readExport(res.Body, qy, sp)
	if err != nil {
		return nil, fmt.Errorf("victoriametrics: query %s: /api/v1/export: %w", qy.Name, err)
	}
	return ans, nil
}

// readExport reads the samples of an /api/v1/export answer into q's rows
// in sp: one per series and millisecond with a field of q set, kept by
// q's threshold, the newest q.Limit.
func readExport(body []byte, qy *query.Query, sp span) (*query.Answer, error) {
	type key struct {
		series string
		ms     int64
	}
	byKey := map[key]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		var line struct {
			Metric     map[string]string `json:"metric"`
			Values     []float64         `json:"values"`
			Timestamps []int64           `json:"timestamps"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, err
		}
		field := strings.TrimPrefix(line.Metric["__name__"], qy.Table+"_")
		s := seriesKey(line.Metric)
		for i, ms := range line.Timestamps {
			if ms < sp.from || ms >= sp.to || i >= len(line.Values) {
				continue
			}
			k := key{s, ms}
			if byKey[k] == nil {
				byKey[k] = map[string]float64{}
			}
			byKey[k][field] = line.Values[i]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	ans := &query.Answer{}
	for k, fields := range byKey {
		if f := qy.Filter; f != nil {
			v, ok := fields[f.Field]
			if !ok || (f.Below && !(v < f.Value)) || (!f.Below && !(v > f.Value)) {
				continue
			}
		}
		r := query.Row{Time: time.UnixMilli(k.ms).UTC(), Values: make([]float64, len(qy.Fields))}
		set := false
		for i, f := range qy.Fields {
			v, ok := fields[f]
			if !ok {
				v = math.NaN()
			}
			r.Values[i], set = v, set || ok
		}
		if set {
			ans.Rows = append(ans.Rows, r)
		}
	}
	if qy.Limit > 0 && len(ans.Rows) > qy.Limit {
		sort.SliceStable(ans.Rows, func(i, j int) bool { return ans.Rows[i].Time.After(ans.Rows[j].Time) })
		ans.Rows = ans.Rows[:qy.Limit]
	}
	return ans, nil
}

// flush makes written samples searchable (as Count does).
func (q *vmQuerier) flush(ctx context.Context) error {
	res, err := q.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/internal/force_flush", NoCompress: true})
	if err != nil {
		return fmt.Errorf("victoriametrics: %w", err)
	}
	if res.Status != 200 {
		return fmt.Errorf("victoriametrics: GET /internal/force_flush: %d %s", res.Status, httpwrite.Snippet(res.Body, 300))
	}
	return nil
}
