package query

import (
	"iter"
	"math"
	"slices"
	"strings"
	"time"
)

// Point is one row as Eval reads it: its time, its tags and its fields. A
// field the row does not have is NULL.
type Point struct {
	Time   time.Time
	Tags   map[string]string
	Fields map[string]float64
}

// Eval is the reference answer to q over points, the rows of q.Table in
// any order: what a database that holds exactly these rows must answer.
// Its memory grows with the groups and buckets of the answer (and, for
// Agg Rows, with the rows returned), not with the rows read. The answer is
// sorted (Answer.Sort).
//
// Where a database could answer two ways, Eval fixes one, and the targets
// follow it: a row none of whose Fields is set is not read (InfluxDB has
// no such row); Max, Min and Avg of no value are NULL (NaN) and Count is 0;
// Last takes the row with the greatest time of the group and bucket,
// with NaN for a field that row does not have.
func Eval(q *Query, points iter.Seq[Point]) *Answer {
	e := NewEvaluator(q)
	for p := range points {
		e.Add(p)
	}
	return e.Answer()
}

// Evaluator computes Eval's answer to one query one point at a time, so
// that one pass over the input can answer many queries (EvalSet).
type Evaluator struct {
	q      *Query
	groups map[string]*acc
	rows   []Row
	key    strings.Builder
}

type acc struct {
	group []string
	time  time.Time // bucket start, or the last row's time
	last  time.Time // Last: the time of the row kept
	vals  []float64 // Max, Min, Last: the value; Avg: the sum
	n     []int64   // values counted per field
	seen  bool      // Last: a row was kept
}

// NewEvaluator is an empty evaluation of q.
func NewEvaluator(q *Query) *Evaluator {
	return &Evaluator{q: q, groups: map[string]*acc{}}
}

// Add reads one point of q.Table (any order).
func (e *Evaluator) Add(p Point) {
	q := e.q
	if !q.keeps(p) {
		return
	}
	if q.Agg == Rows {
		r := Row{Time: p.Time.UTC(), Values: make([]float64, len(q.Fields))}
		for i, f := range q.Fields {
			r.Values[i] = fieldOf(p, f)
		}
		e.rows = append(e.rows, r)
		if q.Limit > 0 && len(e.rows) > 4*q.Limit+64 {
			e.rows = newest(e.rows, q.Limit)
		}
		return
	}
	key := &e.key
	key.Reset()
	for _, tag := range q.GroupBy {
		key.WriteString(p.Tags[tag])
		key.WriteByte(0)
	}
	var start time.Time
	if q.Bucket > 0 {
		start = BucketStart(p.Time, q.Bucket)
		key.WriteString(start.Format(time.RFC3339Nano))
	}
	a := e.groups[key.String()]
	if a == nil {
		a = &acc{time: start, vals: make([]float64, len(q.Fields)), n: make([]int64, len(q.Fields))}
		for _, tag := range q.GroupBy {
			a.group = append(a.group, p.Tags[tag])
		}
		for i := range a.vals {
			a.vals[i] = math.NaN()
		}
		e.groups[key.String()] = a
	}
	if q.Agg == Last {
		if a.seen && !p.Time.After(a.last) {
			return
		}
		a.seen, a.last = true, p.Time.UTC()
		for i, f := range q.Fields {
			a.vals[i] = fieldOf(p, f)
		}
		return
	}
	for i, f := range q.Fields {
		v, ok := p.Fields[f]
		if !ok || math.IsNaN(v) {
			continue
		}
		switch {
		case a.n[i] == 0 && q.Agg != Count:
			a.vals[i] = v
		case q.Agg == Max:
			a.vals[i] = math.Max(a.vals[i], v)
		case q.Agg == Min:
			a.vals[i] = math.Min(a.vals[i], v)
		case q.Agg == Avg:
			a.vals[i] += v
		}
		a.n[i]++
	}
}

// Answer is the answer over the points added so far (sorted).
func (e *Evaluator) Answer() *Answer {
	q := e.q
	ans := &Answer{Rows: slices.Clone(e.rows)}
	if q.Agg == Rows {
		if q.Limit > 0 {
			ans.Rows = newest(ans.Rows, q.Limit)
		}
		ans.Sort()
		return ans
	}
	for _, a := range e.groups {
		r := Row{Group: a.group, Time: a.time, Values: slices.Clone(a.vals)}
		switch q.Agg {
		case Avg:
			for i := range r.Values {
				if a.n[i] > 0 {
					r.Values[i] /= float64(a.n[i])
				}
			}
		case Count:
			for i := range r.Values {
				r.Values[i] = float64(a.n[i])
			}
		case Last:
			if q.Bucket == 0 {
				r.Time = a.last
			}
		}
		ans.Rows = append(ans.Rows, r)
	}
	if q.staged() {
		ans.Rows = q.stages(ans.Rows)
	}
	ans.Sort()
	if q.Limit > 0 && q.Bucket > 0 {
		ans.Rows = NewestPerGroup(ans.Rows, q.Limit)
	}
	return ans
}

// TablePoint is a point and the table (as loaded) it is a row of.
type TablePoint struct {
	Table string
	Point
}

// EvalSet answers every query of qs in one pass over points, the rows of
// every table in any order: answers[i] is Eval(qs[i], the points of
// qs[i].Table). Its cost is the points times the queries of each point's
// table whose window holds it.
func EvalSet(qs []*Query, points iter.Seq[TablePoint]) []*Answer {
	type entry struct {
		e          *Evaluator
		start, end time.Time
	}
	byTable := map[string][]entry{}
	evs := make([]*Evaluator, len(qs))
	for i, q := range qs {
		evs[i] = NewEvaluator(q)
		byTable[q.Table] = append(byTable[q.Table], entry{evs[i], q.Start, q.End})
	}
	for tp := range points {
		for _, en := range byTable[tp.Table] {
			if tp.Time.Before(en.start) || !tp.Time.Before(en.end) {
				continue
			}
			en.e.Add(tp.Point)
		}
	}
	out := make([]*Answer, len(qs))
	for i, e := range evs {
		out[i] = e.Answer()
	}
	return out
}

// keeps reports whether q reads p.
func (q *Query) keeps(p Point) bool {
	if p.Time.Before(q.Start) || !p.Time.Before(q.End) {
		return false
	}
	for _, m := range q.Where {
		v, ok := p.Tags[m.Tag]
		if !ok || !slices.Contains(m.Values, v) {
			return false
		}
	}
	if f := q.Filter; f != nil {
		v, ok := p.Fields[f.Field]
		if !ok || math.IsNaN(v) || (f.Below && !(v < f.Value)) || (!f.Below && !(v > f.Value)) {
			return false
		}
	}
	for _, f := range q.Fields {
		if _, ok := p.Fields[f]; ok {
			return true
		}
	}
	return false
}

func fieldOf(p Point, f string) float64 {
	if v, ok := p.Fields[f]; ok {
		return v
	}
	return math.NaN()
}

// BucketStart is the start of the bucket of width b that holds t: a
// multiple of b since the Unix epoch, in UTC.
func BucketStart(t time.Time, b time.Duration) time.Time {
	ns := t.UnixNano()
	r := ns % int64(b)
	if r < 0 {
		r += int64(b)
	}
	return time.Unix(0, ns-r).UTC()
}

// newest keeps the n rows with the greatest time (rows of one group).
func newest(rows []Row, n int) []Row {
	slices.SortStableFunc(rows, func(x, y Row) int { return y.Time.Compare(x.Time) })
	if len(rows) > n {
		rows = rows[:n]
	}
	return rows
}

// NewestPerGroup sorts rows (Answer.Sort) and keeps the n newest of each
// group: what Limit asks of an answer with buckets, for a target that
// cannot say it in its dialect.
func NewestPerGroup(rows []Row, n int) []Row {
	(&Answer{Rows: rows}).Sort()
	out := rows[:0]
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && slices.Equal(rows[j].Group, rows[i].Group) {
			j++
		}
		out = append(out, rows[max(i, j-n):j]...)
		i = j
	}
	return out
}
