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

// A query with a Having, a Change or Rollups (query.Query.Staged) is said
// in InfluxQL as subqueries around its first stage's statement (with a
// Change, influxChange's, which states the Having and the Change):
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
	span := fmt.Sprintf(" WHERE time >= %d AND time < %d", query.BucketStart(q.Start, 24*time.Hour).UnixNano(), q.End.UnixNano())
	var stmt string
	var err error
	cols := q.Fields
	if q.Change != nil {
		if stmt, err = influxChange(q, from); err != nil {
			return "", err
		}
		cols = []string{q.Change.Column()}
	} else {
		base := *q
		base.Having, base.Rollups = nil, nil
		if stmt, err = influxQL(&base, from); err != nil {
			return "", err
		}
	}
	// A subquery newest first (Last per group) is read newest first.
	order := ""
	if q.Agg == query.Last && q.Bucket == 0 {
		order = " ORDER BY time DESC"
	}
	groups := q.GroupBy
	if q.Change == nil {
		if stmt, err = influxHaving(q, stmt, span, order, cols, groups, q.Having); err != nil {
			return "", err
		}
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

// influxChange states q's aggregate, its Having and its Change:
//
//	base     SELECT mean("f") AS "v0" FROM ... GROUP BY time(b), "g", ... fill(none)
//	state    SELECT step("v0" - v) AS "tsq_on" FROM (base) WHERE <range> [AND <Having>] GROUP BY "g", ...
//	flips    SELECT difference("tsq_on") AS "tsq_d" FROM (state) WHERE <range> GROUP BY "g", ...
//	rises    SELECT "tsq_d" AS "v0" FROM (flips) WHERE <range> AND "tsq_d" > 0 GROUP BY "g", ...
//
// A SELECT has no comparison, so step(x) = (ceil(x) + abs(ceil(x))) /
// (ceil(x) + abs(ceil(x))) makes it: ceil(x) is at least 1 when x > 0
// (v0 > v: the difference of two floats is 0 only when they are equal)
// and at most 0 otherwise, and InfluxQL's x / 0 is 0, so step is 1 above
// the threshold and 0 at or below it (v is written with a point: an
// integer x would meet 1.6.7's abs(), which returns an integer as it is).
// difference() of each group's rows in time order is 1 at an on row whose
// row before is off.
//
// With one field a bucket has rows exactly when it has a value of the
// field. With several, a bucket can have rows but no value of the Change's
// field (off), which fill(none) leaves out of the state (a NULL state is
// no row): the base then counts each field ("tsq_n0", ...) with fill(0),
// the state keeps the buckets whose counts are not all 0 and multiplies
// step by "tsq_nI" / "tsq_nI" (0 without a value).
//
// The hours of runs are influxRuns'. Under a Rollup that groups by fewer
// tags 1.6.7 reads the subqueries with the outer groups: fill(0) then
// fills each row as a series of its own over the window (a Rollup counted
// 6 rises of 7 in TestChangeV1), and the runs came out wrong too
// (runs-regrouped there), so a Change of several fields or of runs under
// such a Rollup is refused.
func influxChange(q *query.Query, from string) (string, error) {
	c := q.Change
	counted := len(q.Fields) > 1
	if counted || c.Runs {
		for _, r := range q.Rollups {
			if len(r.GroupBy) != len(q.GroupBy) {
				return "", fmt.Errorf("query %s: InfluxDB 1.x answers a Change of several fields (fill(0)) or of runs (an anchor, "+
					"a union, fill(linear)) wrongly under a Rollup by fewer tags: %w", q.Name, errors.ErrUnsupported)
			}
		}
	}
	base := *q
	base.Having, base.Change, base.Rollups = nil, nil, nil
	stmt, err := influxQLAgg(&base, from, counted)
	if err != nil {
		return "", err
	}
	// The range of the stages: from the window's first bucket (or its
	// day, as span) on.
	first := query.BucketStart(q.Start, q.Bucket)
	rng := fmt.Sprintf(" WHERE time >= %d AND time < %d", min(first.UnixNano(), query.BucketStart(q.Start, 24*time.Hour).UnixNano()), q.End.UnixNano())
	by := ""
	var gs []string
	for _, g := range q.GroupBy {
		gs = append(gs, quoteIdent(g))
	}
	if len(gs) > 0 {
		by = " GROUP BY " + strings.Join(gs, ", ")
	}
	val := func(f string) string { return quoteIdent("v" + strconv.Itoa(slices.Index(q.Fields, f))) }
	count := func(f string) string { return quoteIdent("tsq_n" + strconv.Itoa(slices.Index(q.Fields, f))) }
	where := rng
	// Counted, a value without a count is fill(0)'s (a Count's 0 is its own).
	nulls := counted && q.Agg != query.Count
	if counted {
		var counts []string
		for _, f := range q.Fields {
			counts = append(counts, count(f))
		}
		where += " AND " + strings.Join(counts, " + ") + " > 0"
	}
	if h := q.Having; h != nil {
		op := " > "
		if h.Below {
			op = " < "
		}
		v := val(h.Field)
		where += " AND "
		if nulls {
			where += count(h.Field) + " > 0 AND "
		}
		if h.Over != "" {
			// A zero divisor keeps no row (a divisor without a value is 0).
			where += val(h.Over) + " != 0 AND "
			v += " / " + val(h.Over)
		}
		where += v + op + strconv.FormatFloat(h.Value, 'f', -1, 64)
	}
	// A float literal makes x a float: 1.6.7's abs() of an integer (a
	// count, an integer field's max) returns it unchanged.
	x := val(c.Field) + " - " + floatLiteral(c.Value)
	if c.Value < 0 {
		x = val(c.Field) + " + " + floatLiteral(-c.Value)
	}
	y := "ceil(" + x + ") + abs(ceil(" + x + "))"
	on := "(" + y + ") / (" + y + ")"
	if nulls {
		on += " * " + count(c.Field) + " / " + count(c.Field)
	}
	state := "SELECT " + on + " AS " + quoteIdent("tsq_on") + " FROM (" + stmt + ")" + where + by
	if c.Runs {
		return influxRuns(q, state, rng, by, gs, first), nil
	}
	stmt = "SELECT difference(" + quoteIdent("tsq_on") + ") AS " + quoteIdent("tsq_d") + " FROM (" + state + ")" + rng + by
	return "SELECT " + quoteIdent("tsq_d") + " AS " + quoteIdent("v0") + " FROM (" + stmt + ")" + rng + " AND " + quoteIdent("tsq_d") + " > 0" + by, nil
}

// influxRuns states the hours of the runs of on rows of state (influxChange's),
// each at its first row, over rng (a WHERE clause), grouped by (a GROUP BY
// clause of) the tags gs; first is the window's first bucket.
//
// InfluxQL's functions from one row to the next answer at the later row,
// so a run's length is known at its end, not at its first row: it is made
// there by interpolation. Times become values as bucket counts from an
// anchor row at first in every group (first("tsq_on") * 0 over one
// GROUP BY time bucket that starts there), put with the rows and summed:
// cumulative_sum(elapsed(x, b)) is tau, the buckets since the anchor. A
// value rides along a cumulative_sum as cumulative_sum(difference(x)),
// which is x less the anchor's 0.
//
//	rises   the on rows after an off row, x = elapsed("tsq_on", b): e, the
//	        buckets since the off row before, and tau as above
//	offs    the off rows, tau^2 ("tsq_g2"), then
//	        max("tsq_g2") GROUP BY time(b), "g", ... fill(linear)
//
// At a rise r, whose off row before is l (tau_l = tau_r - e) and whose run
// the off row f ends, fill(linear) interpolates tau^2 between l and f (no
// off row between them): tau_l^2 + (tau_r - tau_l)(tau_l + tau_f), from
// which tau_f is round((g2 - tau_l^2) / e) - tau_l; without an f there is
// g2 (fill(linear) does not extrapolate) and no row, as the run the window
// cuts is not a row. The two are put side by side by a union (FROM of
// both, read raw first: an aggregate over a union of transformed
// subqueries loses one side's fields in 1.6.7) and max() per bucket; the
// hours are (tau_f - tau_r) times the bucket's.
func influxRuns(q *query.Query, state, rng, by string, gs []string, first time.Time) string {
	b := influxDuration(q.Bucket)
	id := quoteIdent
	// One bucket from first past the window's end, timed at first.
	whole := q.End.Sub(first)
	whole += (q.Bucket - whole%q.Bucket) % q.Bucket
	off := first.UnixNano() % int64(whole)
	if off < 0 {
		off += int64(whole)
	}
	byTime := func(d string) string {
		return " GROUP BY " + strings.Join(append([]string{"time(" + d + ")"}, gs...), ", ")
	}
	anchor := "SELECT first(" + id("tsq_on") + ") * 0 AS " + id("tsq_x") + " FROM (" + state + ")" + rng +
		byTime(influxDuration(whole)+", "+influxDuration(time.Duration(off))) + " fill(none)"
	flips := "SELECT difference(" + id("tsq_on") + ") AS " + id("tsq_d") + ", elapsed(" + id("tsq_on") + ", " + b + ") AS " + id("tsq_e") +
		" FROM (" + state + ")" + rng + by
	rises := "SELECT " + id("tsq_x") + " FROM (SELECT " + id("tsq_e") + " AS " + id("tsq_x") + " FROM (" + flips + ")" + rng +
		" AND " + id("tsq_d") + " > 0" + by + "), (" + anchor + ")" + rng + by
	rises = "SELECT elapsed(" + id("tsq_x") + ", " + b + ") AS " + id("tsq_el") + ", difference(" + id("tsq_x") + ") AS " + id("tsq_dx") +
		" FROM (" + rises + ")" + rng + by
	rises = "SELECT cumulative_sum(" + id("tsq_el") + ") AS " + id("tsq_r") + ", cumulative_sum(" + id("tsq_dx") + ") AS " + id("tsq_e") +
		" FROM (" + rises + ")" + rng + by
	offs := "SELECT " + id("tsq_x") + " FROM (SELECT " + id("tsq_on") + " AS " + id("tsq_x") + " FROM (" + state + ")" + rng +
		" AND " + id("tsq_on") + " = 0" + by + "), (" + anchor + ")" + rng + by
	offs = "SELECT elapsed(" + id("tsq_x") + ", " + b + ") AS " + id("tsq_el") + " FROM (" + offs + ")" + rng + by
	offs = "SELECT cumulative_sum(" + id("tsq_el") + ") AS " + id("tsq_t") + " FROM (" + offs + ")" + rng + by
	offs = "SELECT " + id("tsq_t") + " * " + id("tsq_t") + " AS " + id("tsq_g2") + " FROM (" + offs + ")" + rng + by
	offs = "SELECT max(" + id("tsq_g2") + ") AS " + id("tsq_g2") + " FROM (" + offs + ")" + rng + byTime(b) + " fill(linear)"
	both := "SELECT " + id("tsq_g2") + ", " + id("tsq_r") + ", " + id("tsq_e") + " FROM (" + offs + "), (" + rises + ")" + rng + by
	both = "SELECT max(" + id("tsq_g2") + ") AS " + id("tsq_g2") + ", max(" + id("tsq_r") + ") AS " + id("tsq_r") + ", max(" + id("tsq_e") +
		") AS " + id("tsq_e") + " FROM (" + both + ")" + rng + byTime(b) + " fill(none)"
	l := "(" + id("tsq_r") + " - " + id("tsq_e") + ")"
	runs := "(round((" + id("tsq_g2") + " - " + l + " * " + l + ") / " + id("tsq_e") + ") - " + l + " - " + id("tsq_r") + ")"
	return "SELECT " + runs + " * " + strconv.FormatInt(int64(q.Bucket), 10) + " / 3600000000000.0 AS " + id("v0") +
		" FROM (" + both + ")" + rng + " AND " + id("tsq_r") + " > 0 AND " + id("tsq_g2") + " >= 0" + by
}

// floatLiteral is v as an InfluxQL float literal: decimal, with a point.
func floatLiteral(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
