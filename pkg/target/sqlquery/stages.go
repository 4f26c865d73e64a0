package sqlquery

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/query"
)

// Stages wraps base, q's statement without its Having and Rollups (laid
// out as BaseLayout(q)), in the statements that apply them:
//
//   - Having: SELECT the columns FROM (base) WHERE tsq_vI > v, or
//     CASE WHEN tsq_vJ <> 0 THEN tsq_vI / tsq_vJ END > v for a ratio (a
//     NULL or zero divisor keeps no row, and divides nothing by zero).
//   - Change: the rows before with their state (tsq_on, 1 or 0) and
//     their time in seconds (tsq_sec), the state of the row before in
//     each group (lag, NULL for none: DataFusion before 2023 takes no
//     default of another type than the offset's); a rise is an on row after an off row;
//     runs are read from the rows whose state differs from the row
//     before's, each with the next such row's time (lead): an on one
//     followed by an off one is a run, its hours their times' difference.
//   - Rollup: the rows before renamed (tsq_k* the groups kept, tsq_kb
//     the new bucket of their time, tsq_u* their values, tsq_one a
//     constant that gives an empty input no group), aggregated GROUP BY
//     them, and renamed back to the layout's names.
func (d *Dialect) Stages(q *query.Query, base string) (string, Layout, error) {
	lay := BaseLayout(q)
	cols := q.Fields
	stmt, err := d.having(q, base, lay, cols, q.Having)
	if err != nil {
		return "", Layout{}, err
	}
	if c := q.Change; c != nil {
		if stmt, lay, err = d.change(q, c, stmt, lay, cols); err != nil {
			return "", Layout{}, err
		}
		cols = []string{c.Column()}
	}
	groups := q.GroupBy
	for n, r := range q.Rollups {
		var keys, inner, outer []string
		for j, g := range r.GroupBy {
			k := "tsq_k" + strconv.Itoa(j)
			inner = append(inner, "tsq_g"+strconv.Itoa(slices.Index(groups, g))+" AS "+k)
			outer = append(outer, k+" AS tsq_g"+strconv.Itoa(j))
			keys = append(keys, k)
		}
		next := Layout{Groups: len(r.GroupBy), Values: len(cols)}
		if r.Bucket > 0 {
			rebucket := d.Rebucket
			if rebucket == nil {
				rebucket = d.Bucket
			}
			inner = append(inner, rebucket(lay.TimeName, r.Bucket)+" AS tsq_kb")
			outer = append(outer, "tsq_kb AS tsq_bucket")
			keys = append(keys, "tsq_kb")
			next.TimeName = "tsq_bucket"
		}
		if len(keys) == 0 {
			inner = append(inner, "1 AS tsq_one")
			keys = append(keys, "tsq_one")
		}
		for i := range cols {
			inner = append(inner, "tsq_v"+strconv.Itoa(i)+" AS tsq_u"+strconv.Itoa(i))
		}
		scale := ""
		if r.Scale != 0 {
			v, err := Number(r.Scale)
			if err != nil {
				return "", Layout{}, fmt.Errorf("%s: query %s: %w", d.Name, q.Name, err)
			}
			scale = " * " + v
		}
		if r.Agg == query.Count {
			cols = []string{"count"}
			next.Values = 1
			count := d.CountRows
			if count == "" {
				count = "count(*)"
			}
			outer = append(outer, d.Double(count)+scale+" AS tsq_v0")
		} else {
			for i := range cols {
				outer = append(outer, d.Double("avg(tsq_u"+strconv.Itoa(i)+")")+scale+" AS tsq_v"+strconv.Itoa(i))
			}
		}
		stmt = fmt.Sprintf("SELECT %s FROM (SELECT %s FROM (%s) tsq_s%d) tsq_r%d GROUP BY %s",
			strings.Join(outer, ", "), strings.Join(inner, ", "), stmt, n, n, strings.Join(keys, ", "))
		lay, groups = next, r.GroupBy
		if stmt, err = d.having(q, stmt, lay, cols, r.Having); err != nil {
			return "", Layout{}, err
		}
	}
	return stmt, lay, nil
}

// having wraps stmt (laid out as lay, its values named cols) in h.
func (d *Dialect) having(q *query.Query, stmt string, lay Layout, cols []string, h *query.Having) (string, error) {
	if h == nil {
		return stmt, nil
	}
	v, err := Number(h.Value)
	if err != nil {
		return "", fmt.Errorf("%s: query %s: %w", d.Name, q.Name, err)
	}
	val := "tsq_v" + strconv.Itoa(slices.Index(cols, h.Field))
	if h.Over != "" {
		div := "tsq_v" + strconv.Itoa(slices.Index(cols, h.Over))
		val = "CASE WHEN " + div + " <> 0 THEN " + val + " / " + div + " END"
	}
	op := " > "
	if h.Below {
		op = " < "
	}
	return "SELECT " + strings.Join(lay.Names(), ", ") + " FROM (" + stmt + ") tsq_h WHERE " + val + op + v, nil
}

// change wraps stmt (laid out as lay, its values named cols, with a
// bucket) in c.
func (d *Dialect) change(q *query.Query, c *query.Change, stmt string, lay Layout, cols []string) (string, Layout, error) {
	if d.Seconds == nil {
		return "", Layout{}, Unsupported(d.Name, q, "no window functions (lag, lead) to follow a group's buckets")
	}
	v, err := Number(c.Value)
	if err != nil {
		return "", Layout{}, fmt.Errorf("%s: query %s: %w", d.Name, q.Name, err)
	}
	var keys []string
	for i := range lay.Groups {
		keys = append(keys, "tsq_g"+strconv.Itoa(i))
	}
	part := strings.Join(keys, ", ")
	window := d.Window
	if window == nil {
		window = func(fn, e, part, order string) string {
			over := "ORDER BY " + order
			if part != "" {
				over = "PARTITION BY " + part + " " + over
			}
			return fn + "(" + e + ") OVER (" + over + ")"
		}
	}
	t := lay.TimeName
	g := ""
	if part != "" {
		g = part + ", "
	}
	val := "tsq_v" + strconv.Itoa(slices.Index(cols, c.Field))
	states := fmt.Sprintf("SELECT %s%s, %s AS tsq_on, %s AS tsq_sec FROM (%s) tsq_c0", g, t,
		d.Double("CASE WHEN "+val+" > "+v+" THEN 1 ELSE 0 END"), d.Double(d.Seconds(t)), stmt)
	prev := fmt.Sprintf("SELECT %s%s, tsq_on, tsq_sec, %s AS tsq_prev FROM (%s) tsq_c1", g, t, window("lag", "tsq_on", part, t), states)
	out := Layout{Groups: lay.Groups, TimeName: t, Values: 1}
	if !c.Runs {
		return fmt.Sprintf("SELECT %s%s, %s AS tsq_v0 FROM (%s) tsq_c2 WHERE tsq_on = 1 AND tsq_prev = 0", g, t, d.Double("1"), prev), out, nil
	}
	flips := fmt.Sprintf("SELECT %s%s, tsq_on, tsq_sec FROM (%s) tsq_c2 WHERE tsq_prev IS NOT NULL AND tsq_on <> tsq_prev", g, t, prev)
	next := fmt.Sprintf("SELECT %s%s, tsq_on, tsq_sec, %s AS tsq_stop FROM (%s) tsq_c3", g, t, window("lead", "tsq_sec", part, t), flips)
	return fmt.Sprintf("SELECT %s%s, (tsq_stop - tsq_sec) / 3600 AS tsq_v0 FROM (%s) tsq_c4 WHERE tsq_on = 1 AND tsq_stop IS NOT NULL", g, t, next), out, nil
}
