package cassandra

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// Queries through CQL. What CQL can say of a query.Query over this layout
// (partition key: every tag and the day bucket; clustering: time):
//
//	Rows   SELECT time, CAST(f AS double), ... FROM t WHERE tag IN (...) AND
//	       time >= a AND time < b [AND g > v] ALLOW FILTERING
//
// ALLOW FILTERING: the rows of a window are in every partition of the
// series matched, and a threshold is on a regular column, so the server
// reads the partitions it cannot name. Refused (errors.ErrUnsupported):
//
//   - Max, Min, Avg, Count per group or bucket: CQL's GROUP BY takes the
//     primary key's columns in order (every tag, the bucket, then
//     floor(time)), so its groups are one series' and one day's; a group
//     of several series (a host subset, a fleet) or of some tags only is
//     not said.
//   - Last: the newest row is per partition (PER PARTITION LIMIT), a
//     series' day, not per group.
//   - Rows with a limit: no ORDER BY across partitions.
//   - a Having, a Change or Rollups: CQL has no subqueries.
type cqlQuerier struct{ t *Target }

// NewQuerier opens query connection n (load.Hooks.NewQuerier): the
// target's session, which is a pool of connections.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	if _, err := t.session(); err != nil {
		return nil, err
	}
	return &cqlQuerier{t: t}, nil
}

func (q *cqlQuerier) Close() error { return nil }

// Query states qy in CQL, runs it and reads the answer.
func (q *cqlQuerier) Query(ctx context.Context, qy *query.Query) (*query.Answer, error) {
	if err := qy.Validate(); err != nil {
		return nil, err
	}
	unsup := func(why string) error {
		return fmt.Errorf("cassandra: query %s: %s: %w", qy.Name, why, errors.ErrUnsupported)
	}
	switch {
	case qy.Staged():
		return nil, unsup("CQL has no subqueries for a having, change or rollup stage")
	case qy.Agg == query.Last:
		return nil, unsup("CQL's newest row is a partition's (a series' day), not a group's")
	case qy.Agg != query.Rows:
		return nil, unsup("CQL groups by the primary key's columns in order (every tag, the day bucket, floor(time)), not by a group of series")
	case qy.Limit > 0:
		return nil, unsup("CQL has no ORDER BY across partitions for the newest rows")
	}
	s, err := q.t.session()
	if err != nil {
		return nil, err
	}
	tb, err := q.t.table(ctx, qy.Table, nil)
	if err != nil {
		return nil, err
	}
	if tb == nil {
		return nil, fmt.Errorf("cassandra: query %s: no table %q", qy.Name, qy.Table)
	}
	col := func(name string) (string, bool) {
		i, ok := tb.index[name]
		if !ok {
			return "", false
		}
		return quote(tb.cols[i].name), true
	}
	tc := quote(tb.cols[0].name)
	sel := []string{tc}
	var at []int // the fields selected, by their place in qy.Fields; any other is NULL (the table lacks it)
	for i, f := range qy.Fields {
		if c, ok := col(f); ok && !tb.cols[tb.index[f]].tag {
			sel = append(sel, "CAST("+c+" AS double)")
			at = append(at, i)
		}
	}
	// A time in CQL is whole milliseconds: a row at r ms is in [start, end)
	// when r is in [ceil(start), ceil(end)).
	where := []string{tc + " >= ?", tc + " < ?"}
	args := []any{ceilMs(qy.Start), ceilMs(qy.End)}
	for _, m := range qy.Where {
		c, ok := col(m.Tag)
		if !ok || !tb.cols[tb.index[m.Tag]].tag || len(m.Values) == 0 {
			return &query.Answer{}, nil // a tag the table does not have matches no row
		}
		where = append(where, c+" IN ?")
		args = append(args, m.Values)
	}
	if f := qy.Filter; f != nil {
		c, ok := col(f.Field)
		if !ok || tb.cols[tb.index[f.Field]].tag {
			return &query.Answer{}, nil // a NULL value passes no threshold
		}
		op := " > ?"
		if f.Below {
			op = " < ?"
		}
		where = append(where, c+op)
		args = append(args, f.Value)
	}
	if len(at) == 0 {
		return &query.Answer{}, nil
	}
	stmt := "SELECT " + strings.Join(sel, ", ") + q.t.from(tb) + " WHERE " + strings.Join(where, " AND ") + " ALLOW FILTERING"
	it := s.Query(stmt, args...).Consistency(q.t.cons).PageSize(5000).IterContext(ctx)
	var ans query.Answer
	var ts time.Time
	vals := make([]*float64, len(at))
	dest := []any{&ts}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	for it.Scan(dest...) {
		r := query.Row{Time: ts.UTC(), Values: make([]float64, len(qy.Fields))}
		for i := range r.Values {
			r.Values[i] = math.NaN()
		}
		set := false
		for i, v := range vals {
			if v != nil {
				r.Values[at[i]], set = *v, true
			}
		}
		if set { // a row none of whose fields is set is not read (query.Eval)
			ans.Rows = append(ans.Rows, r)
		}
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("cassandra: query %s: %s: %w", qy.Name, stmt, err)
	}
	return &ans, nil
}

// ceilMs is t rounded up to the millisecond.
func ceilMs(t time.Time) time.Time {
	if r := t.Nanosecond() % int(time.Millisecond); r != 0 {
		t = t.Add(time.Millisecond - time.Duration(r))
	}
	return t
}
