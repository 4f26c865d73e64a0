package prometheus

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Queries through PromQL. A row's field f is a sample of <table>_f whose
// labels are the row's tags and db, at the row's millisecond, and a
// remote write is searchable once acknowledged (no lag).
//
// Windows. A range selector s[w] at time t reads [t-w, t] in Prometheus 2
// and (t-w, t] in 3; a bucket [B, B+b) of millisecond samples is
// [B, B+b-1ms], so it is read at t = B+b-1ms with w = b-1ms (2) or b (3).
// The full buckets of the window come from one /api/v1/query_range (step
// b: Prometheus does not align the evaluation times), a bucket the window
// cuts from an /api/v1/query of its own; without buckets, one
// /api/v1/query over the whole window.
//
//	Max    max by (g) (max_over_time(s[w]))
//	Min    min by (g) (min_over_time(s[w]))
//	Count  sum by (g) (count_over_time(s[w]))
//	Avg    sum by (g) (sum_over_time(s[w])) / sum by (g) (count_over_time(s[w]))
//
// with s = {__name__="<table>_<field>", db="d", tag=~"x|y"}. The newest N
// buckets are the last N per group.
//
// Rows: the samples of the asked fields (and the threshold's) in the window
// are read raw (the range vector over the window) and put together into
// rows by series and millisecond in the loader, which applies the
// threshold and the limit (query.Eval). Refused (errors.ErrUnsupported):
// Last (PromQL has no newest sample across a group's series with its time)
// and any threshold with an aggregate (PromQL compares series at
// evaluation times, not the samples of one millisecond).

type promQuerier struct {
	t        *Target
	p        *httpwrite.Poster
	leftOpen bool // Prometheus 3: range selectors leave out their start
}

// NewQuerier opens query connection n (load.Hooks.NewQuerier): it talks
// to URL n % len(URLs). It asks the server's version once, for the
// windows' edges.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	v, err := t.ServerVersion(ctx)
	if err != nil {
		return nil, err
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "Prometheus "), ".")
	m, err := strconv.Atoi(major)
	if err != nil {
		return nil, fmt.Errorf("prometheus: version %q", v)
	}
	return &promQuerier{t: t, p: t.client.NewPoster(n), leftOpen: m >= 3}, nil
}

func (q *promQuerier) Close() error { return nil }

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Query states qy in PromQL, runs it and reads the answer.
func (q *promQuerier) Query(ctx context.Context, qy *query.Query) (*query.Answer, error) {
	if err := qy.Validate(); err != nil {
		return nil, err
	}
	if qy.Staged() {
		// PromQL's subqueries re-evaluate a series at steps: a threshold on a
		// group's aggregate, a second aggregation of its buckets or a bucket
		// followed by the next are not said here.
		return nil, fmt.Errorf("query %s: a having, change or rollup stage: %w", qy.Name, errors.ErrUnsupported)
	}
	if qy.Agg == query.Last {
		return nil, fmt.Errorf("query %s: PromQL has no newest sample of a group with its time: %w", qy.Name, errors.ErrUnsupported)
	}
	if qy.Filter != nil && qy.Agg != query.Rows {
		return nil, fmt.Errorf("query %s: PromQL cannot keep samples by a threshold before aggregating them: %w", qy.Name, errors.ErrUnsupported)
	}
	for _, g := range qy.GroupBy {
		if !labelName.MatchString(g) {
			return nil, fmt.Errorf("query %s: tag %q is not a label name PromQL can group by: %w", qy.Name, g, errors.ErrUnsupported)
		}
	}
	more := []string{}
	for _, m := range qy.Where {
		if !labelName.MatchString(m.Tag) {
			return nil, fmt.Errorf("query %s: tag %q is not a label name PromQL can match: %w", qy.Name, m.Tag, errors.ErrUnsupported)
		}
		if len(m.Values) == 0 {
			more = append(more, m.Tag+`=""`, m.Tag+`!=""`) // no value: no series
			continue
		}
		alts := make([]string, len(m.Values))
		for i, v := range m.Values {
			alts[i] = regexp.QuoteMeta(v)
		}
		more = append(more, m.Tag+"=~"+quote(strings.Join(alts, "|")))
	}
	from, to := ceilMs(qy.Start), ceilMs(qy.End) // rows at [from, to) ms
	if qy.Agg == query.Rows {
		return q.rows(ctx, qy, more, from, to)
	}
	by := ""
	if len(qy.GroupBy) > 0 {
		by = " by (" + strings.Join(qy.GroupBy, ", ") + ")"
	}
	exprs := make([]string, len(qy.Fields))
	for i, f := range qy.Fields {
		s := selector(quote(qy.Table+"_"+f), q.t.cfg.DBName, more) + "[{w}]"
		switch qy.Agg {
		case query.Max:
			exprs[i] = "max" + by + " (max_over_time(" + s + "))"
		case query.Min:
			exprs[i] = "min" + by + " (min_over_time(" + s + "))"
		case query.Count:
			exprs[i] = "sum" + by + " (count_over_time(" + s + "))"
		case query.Avg:
			exprs[i] = "sum" + by + " (sum_over_time(" + s + ")) / sum" + by + " (count_over_time(" + s + "))"
		}
	}
	rows := map[string]*query.Row{}
	var order []string
	add := func(labels map[string]string, bucket time.Time, i int, v float64) {
		g := make([]string, len(qy.GroupBy))
		for j, tag := range qy.GroupBy {
			g[j] = labels[tag]
		}
		k := strings.Join(g, "\x00") + "\x00" + bucket.Format(time.RFC3339Nano)
		r := rows[k]
		if r == nil {
			r = &query.Row{Group: g, Time: bucket, Values: make([]float64, len(qy.Fields))}
			for j := range r.Values {
				r.Values[j] = math.NaN()
				if qy.Agg == query.Count {
					r.Values[j] = 0
				}
			}
			rows[k] = r
			order = append(order, k)
		}
		r.Values[i] = v
	}
	b := qy.Bucket.Milliseconds()
	for i, e := range exprs {
		if b == 0 {
			pts, err := q.instant(ctx, e, from, to)
			if err != nil {
				return nil, fmt.Errorf("prometheus: query %s: %w", qy.Name, err)
			}
			for _, p := range pts {
				add(p.labels, time.Time{}, i, p.v)
			}
			continue
		}
		first := from - mod(from, b) // the first bucket's start
		full0, full1 := first, to-mod(to, b)
		if full0 < from {
			full0 += b
		}
		for B := first; B < to; B += b {
			if B >= full0 && B+b <= full1 {
				continue // a full bucket: in the range query below
			}
			pts, err := q.instant(ctx, e, max(B, from), min(B+b, to))
			if err != nil {
				return nil, fmt.Errorf("prometheus: query %s: %w", qy.Name, err)
			}
			for _, p := range pts {
				add(p.labels, time.UnixMilli(B).UTC(), i, p.v)
			}
		}
		if full0 < full1 {
			pts, err := q.rangeQuery(ctx, e, full0, full1, b)
			if err != nil {
				return nil, fmt.Errorf("prometheus: query %s: %w", qy.Name, err)
			}
			for _, p := range pts {
				add(p.labels, time.UnixMilli(p.at+1-b).UTC(), i, p.v)
			}
		}
	}
	ans := &query.Answer{}
	for _, k := range order {
		ans.Rows = append(ans.Rows, *rows[k])
	}
	if qy.Limit > 0 && qy.Bucket > 0 {
		ans.Rows = query.NewestPerGroup(ans.Rows, qy.Limit)
	}
	return ans, nil
}

func mod(a, b int64) int64 { return ((a % b) + b) % b }

// ceilMs is t rounded up to the millisecond.
func ceilMs(t time.Time) int64 {
	ns := t.UnixNano()
	ms := ns / 1e6
	if ns%1e6 > 0 {
		ms++
	}
	return ms
}

// window is the range of a selector read at the last millisecond of
// [from, to) that covers exactly that span (at least 2 ms in Prometheus 2,
// which takes no zero range: instant refuses a shorter span).
func (q *promQuerier) window(from, to int64) string {
	w := to - from - 1
	if q.leftOpen {
		w++
	}
	return strconv.FormatInt(max(w, 1), 10) + "ms"
}

type qpoint struct {
	labels map[string]string
	at     int64 // evaluation time, ms
	v      float64
}

func secs(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64) }

// instant evaluates e over [from, to) (ms).
func (q *promQuerier) instant(ctx context.Context, e string, from, to int64) ([]qpoint, error) {
	if to-from == 1 && !q.leftOpen {
		return nil, errors.New("a window of one millisecond: Prometheus 2 takes no zero range to read it")
	}
	expr := strings.ReplaceAll(e, "{w}", q.window(from, to))
	var ans struct {
		Data struct {
			Result []vectorSample `json:"result"`
		} `json:"data"`
	}
	v := url.Values{"query": {expr}, "time": {secs(to - 1)}}
	if err := q.get(ctx, "/api/v1/query", v, &ans); err != nil {
		return nil, fmt.Errorf("%s: %w", expr, err)
	}
	out := make([]qpoint, 0, len(ans.Data.Result))
	for _, r := range ans.Data.Result {
		x, err := value(r.Value[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", expr, err)
		}
		out = append(out, qpoint{labels: r.Metric, at: to - 1, v: x})
	}
	return out, nil
}

// rangeQuery evaluates e over each bucket of width b in [from, to).
func (q *promQuerier) rangeQuery(ctx context.Context, e string, from, to, b int64) ([]qpoint, error) {
	expr := strings.ReplaceAll(e, "{w}", q.window(0, b))
	var ans struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	v := url.Values{"query": {expr}, "start": {secs(from + b - 1)}, "end": {secs(to - 1)}, "step": {secs(b)}}
	if err := q.get(ctx, "/api/v1/query_range", v, &ans); err != nil {
		return nil, fmt.Errorf("%s: %w", expr, err)
	}
	var out []qpoint
	for _, r := range ans.Data.Result {
		for _, p := range r.Values {
			ts, ok := p[0].(float64)
			if !ok {
				return nil, fmt.Errorf("%s: a time %v", expr, p[0])
			}
			x, err := value(p[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", expr, err)
			}
			out = append(out, qpoint{labels: r.Metric, at: int64(math.Round(ts * 1000)), v: x})
		}
	}
	return out, nil
}

func value(v any) (float64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("a value %v", v)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("a value %q", s)
	}
	return x, nil
}

// rows reads the samples of the asked fields (and the threshold's) in
// [from, to) raw and evaluates qy over the rows they make.
func (q *promQuerier) rows(ctx context.Context, qy *query.Query, more []string, from, to int64) (*query.Answer, error) {
	fields := qy.Fields
	if f := qy.Filter; f != nil && !slices.Contains(fields, f.Field) {
		fields = append(fields[:len(fields):len(fields)], f.Field)
	}
	type key struct {
		series string
		ms     int64
	}
	pts := map[key]*query.Point{}
	var order []key
	for _, f := range fields {
		e := selector(quote(qy.Table+"_"+f), q.t.cfg.DBName, more) + "[" + q.window(from, to) + "]"
		var ans struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Values [][2]any          `json:"values"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := q.get(ctx, "/api/v1/query", url.Values{"query": {e}, "time": {secs(to - 1)}}, &ans); err != nil {
			return nil, fmt.Errorf("prometheus: query %s: %s: %w", qy.Name, e, err)
		}
		for _, r := range ans.Data.Result {
			tags := map[string]string{}
			for k, v := range r.Metric {
				if k != "__name__" && k != "db" {
					tags[k] = v
				}
			}
			sk := seriesKey(r.Metric)
			for _, s := range r.Values {
				ts, ok := s[0].(float64)
				if !ok {
					return nil, fmt.Errorf("prometheus: query %s: a time %v", qy.Name, s[0])
				}
				x, err := value(s[1])
				if err != nil {
					return nil, fmt.Errorf("prometheus: query %s: %w", qy.Name, err)
				}
				k := key{sk, int64(math.Round(ts * 1000))}
				p := pts[k]
				if p == nil {
					p = &query.Point{Time: time.UnixMilli(k.ms).UTC(), Tags: tags, Fields: map[string]float64{}}
					pts[k] = p
					order = append(order, k)
				}
				p.Fields[f] = x
			}
		}
	}
	var seq iter.Seq[query.Point] = func(yield func(query.Point) bool) {
		for _, k := range order {
			if !yield(*pts[k]) {
				return
			}
		}
	}
	return query.Eval(qy, seq), nil
}

// get GETs path?v on the querier's connection and decodes a 200 answer.
func (q *promQuerier) get(ctx context.Context, path string, v url.Values, out any) error {
	return getJSON(ctx, q.p, path, v, out)
}
