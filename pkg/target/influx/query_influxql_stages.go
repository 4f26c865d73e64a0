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
// Change, influxChange's, which states the Having too):
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
		if stmt, err = influxChange(q, from, span); err != nil {
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

// influxChange states q's aggregate, its Having and its Change (rises):
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
// step by "tsq_nI" / "tsq_nI" (0 without a value). 1.6.7 fills wrongly
// under a statement that groups by fewer tags (each row of the subquery
// becomes a series of its own, filled over the window: a Rollup counted 6
// rises of 7 in TestChangeV1), so such a query with a Rollup that regroups
// is refused.
//
// The hours of runs are refused: difference() and elapsed() answer at the
// later of two rows, so a run's length is known at the off row that ends
// it while its row is the run's first, whose day the Rollup buckets by;
// ORDER BY time DESC answers at the earlier row, but at the row before a
// flip, not at the flip, and a statement runs every subquery in one
// direction (1.6.7 refuses "subqueries must be ordered in the same
// direction as the query itself").
func influxChange(q *query.Query, from, span string) (string, error) {
	c := q.Change
	if c.Runs {
		return "", fmt.Errorf("query %s: InfluxQL has no run's length at its first bucket: difference() and elapsed() answer at "+
			"the later of two rows, ORDER BY time DESC at the row before a flip, and every subquery of a statement runs in its "+
			"direction: %w", q.Name, errors.ErrUnsupported)
	}
	counted := len(q.Fields) > 1
	if counted {
		for _, r := range q.Rollups {
			if len(r.GroupBy) != len(q.GroupBy) {
				return "", fmt.Errorf("query %s: a bucket without a value of %s is kept by fill(0) only, which InfluxDB 1.x "+
					"fills wrongly under a Rollup by fewer tags: %w", q.Name, c.Field, errors.ErrUnsupported)
			}
		}
	}
	base := *q
	base.Having, base.Change, base.Rollups = nil, nil, nil
	stmt, err := influxQLAgg(&base, from, counted)
	if err != nil {
		return "", err
	}
	by := ""
	if len(q.GroupBy) > 0 {
		var gs []string
		for _, g := range q.GroupBy {
			gs = append(gs, quoteIdent(g))
		}
		by = " GROUP BY " + strings.Join(gs, ", ")
	}
	val := func(f string) string { return quoteIdent("v" + strconv.Itoa(slices.Index(q.Fields, f))) }
	count := func(f string) string { return quoteIdent("tsq_n" + strconv.Itoa(slices.Index(q.Fields, f))) }
	where := span
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
	stmt = "SELECT " + on + " AS " + quoteIdent("tsq_on") + " FROM (" + stmt + ")" + where + by
	stmt = "SELECT difference(" + quoteIdent("tsq_on") + ") AS " + quoteIdent("tsq_d") + " FROM (" + stmt + ")" + span + by
	return "SELECT " + quoteIdent("tsq_d") + " AS " + quoteIdent("v0") + " FROM (" + stmt + ")" + span + " AND " + quoteIdent("tsq_d") + " > 0" + by, nil
}

// floatLiteral is v as an InfluxQL float literal: decimal, with a point.
func floatLiteral(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
