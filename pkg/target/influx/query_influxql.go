package influx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Queries on InfluxDB 1.x: a query.Query becomes one InfluxQL statement
// (influxQL), posted to /query with epoch=ns, whose series are read back
// as rows (one series per group of GROUP BY tags).
//
//	Rows           SELECT "f" AS "v0", ... WHERE ... ORDER BY time [DESC LIMIT n]
//	Last           SELECT "f" AS "v0", ... WHERE ... GROUP BY "g", ... ORDER BY time DESC LIMIT 1
//	Last, bucket   SELECT last("f") AS "v0" ... GROUP BY time(b), "g" fill(none)  (one field only)
//	Max Min Avg    SELECT max|min|mean("f") AS "v0", ... GROUP BY [time(b),] "g", ... fill(none)
//	Count          SELECT count("f") AS "v0", ...
//	newest n       ORDER BY time DESC LIMIT n (per GROUP BY group)
//
// The window is "time >= start AND time < end" in nanoseconds, a tag's
// values an OR of equalities, a threshold "f" > v (or <), which keeps
// no row whose f is NULL. GROUP BY time(b) aligns buckets to the epoch and
// names each by its start; fill(none) leaves out the buckets without rows.
// A raw SELECT returns only the rows with one of its fields set, which is
// what query.Eval reads, and newest-first with LIMIT 1 per group it is the
// row Last means (the newest one, NULL where it lacks a field). Per bucket
// there is no such row read: last() takes each field's newest value on its
// own, which is the newest row's only for one field, so Last per bucket
// of several fields is refused (errors.ErrUnsupported).

// ask states qy in InfluxQL, runs it over p and reads the answer.
func (apiV1) ask(ctx context.Context, t *Target, p *httpwrite.Poster, qy *query.Query) (*query.Answer, error) {
	stmt, err := influxQL(qy, t.from(qy.Table))
	if err != nil {
		return nil, err
	}
	form := url.Values{"q": {stmt}, "db": {t.cfg.DBName}, "epoch": {"ns"}}
	res, err := p.Post(ctx, httpwrite.Request{
		Path: "/query", ContentType: "application/x-www-form-urlencoded",
		Body: []byte(form.Encode()), NoCompress: true,
	})
	if err != nil {
		return nil, fmt.Errorf("influx: %s: %w", qy.Name, err)
	}
	switch {
	case res.Status == 401 || res.Status == 403:
		return nil, load.Settingf("influx: query %s: authentication failed (%d %s): check the user ({User}) and password ({Password})", qy.Name, res.Status, serverMessage(res.Body))
	case res.Status != 200:
		return nil, fmt.Errorf("influx: query %s: %s answered %d: %s", qy.Name, p.BaseURL(), res.Status, serverMessage(res.Body))
	case res.Truncated:
		return nil, fmt.Errorf("influx: query %s: the answer is longer than the loader reads", qy.Name)
	}
	ans, err := readInfluxQL(res.Body, shapeOf(qy))
	if err != nil {
		return nil, fmt.Errorf("influx: query %s (%s): %w", qy.Name, stmt, err)
	}
	return ans, nil
}

// influxQL states q in InfluxQL, reading measurement from (quoted, with
// its retention policy when one is set).
func influxQL(q *query.Query, from string) (string, error) {
	if err := q.Validate(); err != nil {
		return "", err
	}
	if q.Staged() {
		return influxQLStaged(q, from)
	}
	return influxQLAgg(q, from, false)
}

// influxQLAgg states q without its stages. With counted (buckets only),
// each field's count follows the values ("tsq_n0", ...) and fill(0) makes
// a row of every bucket of the window: a bucket without a value of a
// field has 0 there, and one without rows 0 in every count.
func influxQLAgg(q *query.Query, from string, counted bool) (string, error) {
	var b strings.Builder
	b.WriteString("SELECT ")
	fn := ""
	switch q.Agg {
	case query.Max:
		fn = "max"
	case query.Min:
		fn = "min"
	case query.Avg:
		fn = "mean"
	case query.Count:
		fn = "count"
	case query.Last:
		if q.Bucket > 0 {
			if len(q.Fields) > 1 {
				return "", fmt.Errorf("query %s: InfluxQL has no newest row per bucket: last() of several fields takes each field's newest value: %w", q.Name, errors.ErrUnsupported)
			}
			fn = "last"
		}
	}
	for i, f := range q.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		if fn != "" {
			b.WriteString(fn + "(" + quoteIdent(f) + ")")
		} else {
			b.WriteString(quoteIdent(f))
		}
		b.WriteString(" AS " + quoteIdent("v"+strconv.Itoa(i)))
	}
	if counted {
		for i, f := range q.Fields {
			b.WriteString(", count(" + quoteIdent(f) + ") AS " + quoteIdent("tsq_n"+strconv.Itoa(i)))
		}
	}
	b.WriteString(" FROM " + from)
	fmt.Fprintf(&b, " WHERE time >= %d AND time < %d", q.Start.UnixNano(), q.End.UnixNano())
	for _, m := range q.Where {
		if len(m.Values) == 0 { // no value: no row
			b.WriteString(" AND " + quoteIdent(m.Tag) + " = '' AND " + quoteIdent(m.Tag) + " != ''")
			continue
		}
		b.WriteString(" AND (")
		for i, v := range m.Values {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString(quoteIdent(m.Tag) + " = " + quoteString(v))
		}
		b.WriteString(")")
	}
	if f := q.Filter; f != nil {
		cmp, err := comparison(q)
		if err != nil {
			return "", err
		}
		b.WriteString(" AND " + quoteIdent(f.Field) + cmp)
	}
	var group []string
	if q.Bucket > 0 {
		group = append(group, "time("+influxDuration(q.Bucket)+")")
	}
	for _, g := range q.GroupBy {
		group = append(group, quoteIdent(g))
	}
	if len(group) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(group, ", "))
	}
	switch {
	case counted:
		b.WriteString(" fill(0)")
	case q.Bucket > 0:
		b.WriteString(" fill(none)")
	}
	switch {
	case q.Agg == query.Last && q.Bucket == 0:
		b.WriteString(" ORDER BY time DESC LIMIT 1")
	case q.Limit > 0 && (q.Agg == query.Rows || q.Bucket > 0):
		fmt.Fprintf(&b, " ORDER BY time DESC LIMIT %d", q.Limit)
	}
	return b.String(), nil
}

// quoteString quotes an InfluxQL string literal.
func quoteString(s string) string {
	return `'` + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + `'`
}

// comparison is q's threshold as InfluxQL and Flux both compare a value
// with it: " > v" or " < v", v a decimal literal without exponent.
func comparison(q *query.Query) (string, error) {
	v := q.Filter.Value
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "", fmt.Errorf("query %s: threshold %g is not a number a database compares with", q.Name, v)
	}
	op := " > "
	if q.Filter.Below {
		op = " < "
	}
	return op + strconv.FormatFloat(v, 'f', -1, 64), nil
}

// influxDuration is d as an InfluxQL (and Flux) duration literal: whole
// hours, minutes, seconds, milliseconds, microseconds or nanoseconds.
func influxDuration(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "us"}} {
		if d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// readInfluxQL reads a /query answer (epoch=ns, columns time, v0, v1, ...)
// to q as an Answer.
func readInfluxQL(body []byte, q *query.Query) (*query.Answer, error) {
	var qr struct {
		Results []struct {
			Error   string `json:"error"`
			Partial bool   `json:"partial"`
			Series  []struct {
				Tags    map[string]string `json:"tags"`
				Columns []string          `json:"columns"`
				Values  [][]any           `json:"values"`
				Partial bool              `json:"partial"`
			} `json:"series"`
		} `json:"results"`
		Error string `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&qr); err != nil {
		return nil, fmt.Errorf("unreadable answer: %v (%s)", err, httpwrite.Snippet(body, 200))
	}
	if qr.Error != "" {
		return nil, errors.New(qr.Error)
	}
	ans := &query.Answer{}
	for _, r := range qr.Results {
		if r.Error != "" {
			return nil, errors.New(r.Error)
		}
		if r.Partial {
			return nil, errors.New("the server answered part of the rows (partial: its max-row-limit)")
		}
		for _, s := range r.Series {
			if s.Partial {
				return nil, errors.New("the server answered part of a series (partial: its max-row-limit)")
			}
			at := make([]int, len(q.Fields))
			timeAt := -1
			for i := range at {
				at[i] = -1
			}
			for j, c := range s.Columns {
				if c == "time" {
					timeAt = j
				} else if n, ok := strings.CutPrefix(c, "v"); ok {
					if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(at) {
						at[i] = j
					}
				}
			}
			if timeAt < 0 {
				return nil, fmt.Errorf("a series without a time column (%v)", s.Columns)
			}
			var group []string
			for _, g := range q.GroupBy {
				group = append(group, s.Tags[g])
			}
			for _, vals := range s.Values {
				row := query.Row{Group: group, Values: make([]float64, len(q.Fields))}
				if timeAt >= len(vals) {
					return nil, fmt.Errorf("a row of %d values under %d columns", len(vals), len(s.Columns))
				}
				ns, err := jsonInt(vals[timeAt])
				if err != nil {
					return nil, fmt.Errorf("time: %v", err)
				}
				row.Time = rowTime(q, time.Unix(0, ns).UTC())
				for i, j := range at {
					var v any
					if j >= 0 && j < len(vals) {
						v = vals[j]
					}
					if row.Values[i], err = jsonFloat(v); err != nil {
						return nil, fmt.Errorf("%s: %v", q.Fields[i], err)
					}
					if q.Agg == query.Count && math.IsNaN(row.Values[i]) {
						row.Values[i] = 0
					}
				}
				ans.Rows = append(ans.Rows, row)
			}
		}
	}
	return ans, nil
}

// rowTime is what Row.Time holds for a row the database timed at t: the
// bucket's start with buckets, the row's time for Rows and Last, and
// nothing otherwise.
func rowTime(q *query.Query, t time.Time) time.Time {
	switch {
	case q.Bucket > 0:
		return query.BucketStart(t, q.Bucket)
	case q.Agg == query.Rows || q.Agg == query.Last:
		return t
	}
	return time.Time{}
}

func jsonInt(v any) (int64, error) {
	switch x := v.(type) {
	case json.Number:
		return x.Int64()
	case float64:
		return int64(x), nil
	}
	return 0, fmt.Errorf("%v is not an integer", v)
}

// jsonFloat reads a JSON value as a float: null is NaN, and a boolean 1
// or 0.
func jsonFloat(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return math.NaN(), nil
	case json.Number:
		return strconv.ParseFloat(string(x), 64)
	case float64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}
