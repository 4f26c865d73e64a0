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
			inner = append(inner, d.Bucket(lay.TimeName, r.Bucket)+" AS tsq_kb")
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
