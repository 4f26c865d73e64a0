package sqlquery

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/query"
)

// lastArgMax is the Last statement over the kept rows (rows) without
// window functions, for a database with argMax and LIMIT n BY (ClickHouse
// before 21.9 has no window functions): per group and bucket the newest
// time and the fields of its row, taken together as one tuple so that a
// NULL field is the row's NULL (argMax of a Nullable alone skips NULLs and
// would take an older row's value).
func lastArgMax(q *query.Query, rows string, names, groups []string) string {
	keys := slicesClone(groups)
	if q.Bucket > 0 {
		keys = append(keys, "tsq_bucket")
	}
	fields := names[len(names)-len(q.Fields):]
	agg := slicesClone(keys)
	out := slicesClone(keys)
	if q.Bucket == 0 {
		agg = append(agg, "max(tsq_time) AS tsq_newest")
		out = append(out, "tsq_newest AS tsq_time")
	}
	agg = append(agg, "argMax(tuple("+strings.Join(fields, ", ")+"), tsq_time) AS tsq_last")
	for i, f := range fields {
		out = append(out, "tupleElement(tsq_last, "+strconv.Itoa(i+1)+") AS "+f)
	}
	s := "SELECT " + strings.Join(out, ", ") + " FROM (SELECT " + strings.Join(agg, ", ") + " FROM " + rows
	if len(keys) > 0 {
		s += " GROUP BY " + strings.Join(keys, ", ")
	}
	s += ") tsq_agg"
	if q.Limit == 0 || q.Bucket == 0 {
		return s
	}
	if len(groups) == 0 {
		return s + fmt.Sprintf(" ORDER BY tsq_bucket DESC LIMIT %d", q.Limit)
	}
	return limitBy(s, groups, q.Limit)
}

// limitBy keeps of statement s (one row per group and bucket) the n
// newest buckets of each group.
func limitBy(s string, groups []string, n int) string {
	return fmt.Sprintf("%s ORDER BY %s, tsq_bucket DESC LIMIT %d BY %s", s, strings.Join(groups, ", "), n, strings.Join(groups, ", "))
}
