package influx

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// A query with a Having or Rollups (query.Query.Staged; a Change is not) is said in
// InfluxQL as subqueries around its first stage's statement:
//
//	Having   SELECT "v0", ... FROM (stage) WHERE <range> AND "vI" > v GROUP BY "g", ...
//	ratio    the same around SELECT "v0", ..., "vI" / "vJ" AS "tsq_r" FROM (stage) ...
//	Last     each of them ORDER BY time DESC as the first stage is
//	Rollup   SELECT count("v0") [* scale] AS "v0" | mean("vI") [* scale] AS "vI", ...
//	         FROM (stage) WHERE <range> GROUP BY [time(b),] "g", ... [fill(none)]
//
// A subquery's GROUP BY tags are its rows' tags, so each outer statement
// groups by the tags of the stage it returns. The outer range starts at
// the day that holds the window's start: a stage's bucket is timed at its
// start, which can be before the window's (GROUP BY time buckets are
// aligned to the epoch, so the range does not move them).

func influxQLStaged(q *query.Query, from string) (string, error) {
	if q.Change != nil {
		return "", fmt.Errorf("query %s: InfluxQL cannot follow a group's buckets one to the next (a SELECT has no comparison to make a "+
			"bucket's state, no lag or lead): %w", q.Name, errors.ErrUnsupported)
	}
	base := *q
	base.Having, base.Rollups = nil, nil
	stmt, err := influxQL(&base, from)
	if err != nil {
		return "", err
	}
	span := fmt.Sprintf(" WHERE time >= %d AND time < %d", query.BucketStart(q.Start, 24*time.Hour).UnixNano(), q.End.UnixNano())
	// A subquery newest first (Last per group) is read newest first.
	order := ""
	if q.Agg == query.Last && q.Bucket == 0 {
		order = " ORDER BY time DESC"
	}
	cols, groups := q.Fields, q.GroupBy
	if stmt, err = influxHaving(q, stmt, span, order, cols, groups, q.Having); err != nil {
		return "", err
	}
	for _, r := range q.Rollups {
		var sel []string
		scale := ""
		if r.Scale != 0 {
			scale = " * " + strconv.FormatFloat(r.Scale, 'f', -1, 64)
		}
		if r.Agg == query.Count {
			sel = []string{"count(" + quoteIdent("v0") + ")" + scale + " AS " + quoteIdent("v0")}
			cols = []string{"count"}
		} else {
			for i := range cols {
				v := quoteIdent("v" + strconv.Itoa(i))
				sel = append(sel, "mean("+v+")"+scale+" AS "+v)
			}
		}
		var by []string
		if r.Bucket > 0 {
			by = append(by, "time("+influxDuration(r.Bucket)+")")
		}
		for _, g := range r.GroupBy {
			by = append(by, quoteIdent(g))
		}
		stmt = "SELECT " + strings.Join(sel, ", ") + " FROM (" + stmt + ")" + span
		if len(by) > 0 {
			stmt += " GROUP BY " + strings.Join(by, ", ")
		}
		if r.Bucket > 0 {
			stmt += " fill(none)"
		}
		stmt += order
		groups = r.GroupBy
		if stmt, err = influxHaving(q, stmt, span, order, cols, groups, r.Having); err != nil {
			return "", err
		}
	}
	return stmt, nil
}

// influxHaving wraps stmt, whose values are named cols and whose rows
// are tagged with groups, in h.
func influxHaving(q *query.Query, stmt, span, order string, cols, groups []string, h *query.Having) (string, error) {
	if h == nil {
		return stmt, nil
	}
	var vals []string
	for i := range cols {
		vals = append(vals, quoteIdent("v"+strconv.Itoa(i)))
	}
	by := ""
	if len(groups) > 0 {
		var gs []string
		for _, g := range groups {
			gs = append(gs, quoteIdent(g))
		}
		by = " GROUP BY " + strings.Join(gs, ", ")
	}
	v := strconv.FormatFloat(h.Value, 'f', -1, 64)
	op := " > "
	if h.Below {
		op = " < "
	}
	val := vals[slices.Index(cols, h.Field)]
	if h.Over != "" {
		ratio := val + " / " + vals[slices.Index(cols, h.Over)] + " AS " + quoteIdent("tsq_r")
		stmt = "SELECT " + strings.Join(vals, ", ") + ", " + ratio + " FROM (" + stmt + ")" + span + by + order
		val = quoteIdent("tsq_r")
	}
	return "SELECT " + strings.Join(vals, ", ") + " FROM (" + stmt + ")" + span + " AND " + val + op + v + by + order, nil
}

// shapeOf is what the rows of the answer to q look like: q itself, or,
// after Rollups, the last one's values, groups, bucket and aggregate.
func shapeOf(q *query.Query) *query.Query {
	if !q.Staged() {
		return q
	}
	s := *q
	s.Fields = q.Columns()
	if n := len(q.Rollups); n > 0 {
		r := q.Rollups[n-1]
		s.GroupBy, s.Bucket, s.Agg = r.GroupBy, r.Bucket, r.Agg
	}
	return &s
}
