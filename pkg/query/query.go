// Package query states a read of a loaded table without any database's
// dialect, and its answer in one shape, so that the query load of a run
// (--query-rate) can put the same question to every database and check
// each answer against what the loaded rows hold.
//
// A Query is deliberately small: rows of one table in a half-open time
// window, kept by tag values and at most one field threshold, then either
// returned as they are or aggregated per group of tag values and per time
// bucket, newest buckets first when limited. That is enough for the query
// types of TSBS's cpu-only, devops and iot use cases (lastpoint,
// single-groupby, double-groupby, high-cpu, groupby-orderby-limit, last
// location, low fuel, average load). Each target says a Query in its own
// dialect (SQL, InfluxQL, Flux, MetricsQL) and reads the result back into
// an Answer; the package never talks to a database.
package query

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Agg is what a query computes over the rows of one group and bucket.
type Agg uint8

const (
	// Rows returns the rows themselves: Row.Time is the row's time and
	// Row.Values its fields (no grouping, no bucket).
	Rows Agg = iota
	// Max is the greatest value of each field.
	Max
	// Min is the least value of each field.
	Min
	// Avg is the arithmetic mean of each field's non-NULL values.
	Avg
	// Last is each field's value in the row with the greatest time of the
	// group (Row.Time is that row's time). Rows of a group never share a
	// time in the data queries are checked on.
	Last
	// Count is the number of rows with a non-NULL value of each field.
	Count
)

var aggNames = [...]string{Rows: "rows", Max: "max", Min: "min", Avg: "avg", Last: "last", Count: "count"}

func (a Agg) String() string {
	if int(a) < len(aggNames) {
		return aggNames[a]
	}
	return fmt.Sprintf("agg(%d)", a)
}

// Match keeps the rows whose tag Tag has one of Values.
type Match struct {
	Tag    string
	Values []string
}

// Threshold keeps the rows whose field Field is above Value (Below false:
// Field > Value) or below it (Below true: Field < Value). A row whose
// field is NULL is not kept.
type Threshold struct {
	Field string
	Value float64
	Below bool
}

// Query is one read of one table.
type Query struct {
	// Name is the catalogue's name of the query type, such as
	// "single-groupby-1-1-1": what results and errors call it.
	Name string
	// Table is the table as loaded (any --table-prefix included): an
	// InfluxDB measurement, a VictoriaMetrics metric prefix
	// (<table>_<field>).
	Table string
	// Start and End bound the rows read: Start <= time < End. Both are
	// set and End is after Start.
	Start, End time.Time
	// Where keeps the rows that match every Match.
	Where []Match
	// Filter, when not nil, keeps the rows that pass it.
	Filter *Threshold
	// Fields are the fields returned or aggregated, in the order of each
	// Row's Values.
	Fields []string
	// Agg is what is computed per group and bucket.
	Agg Agg
	// GroupBy: one group per distinct combination of these tags' values,
	// in the order of each Row's Group. None: one group.
	GroupBy []string
	// Bucket, when not zero, divides the window into buckets of this width
	// aligned to the Unix epoch (a bucket starts at a multiple of Bucket
	// since 1970-01-01T00:00:00Z; every Bucket of the catalogue divides a
	// day); Row.Time is the bucket's start. A bucket without a row has no
	// Row.
	Bucket time.Duration
	// Limit, when not zero, keeps per group only the Limit newest buckets
	// (with Bucket) or rows (with Agg Rows).
	Limit int
	// Having, when not nil, keeps the aggregated rows that pass it; then
	// each of Rollups aggregates the rows before it again (stage.go).
	// Both need an aggregate and no Limit.
	Having *Having
	// Change, when not nil, follows each group's rows after the Having
	// from one bucket to the next (stage.go); Rollups then aggregate its
	// rows. It needs Bucket and GroupBy.
	Change  *Change
	Rollups []Rollup
}

// Validate says what makes q a query no target should be asked.
func (q *Query) Validate() error {
	switch {
	case q.Table == "":
		return fmt.Errorf("query %s: no table", q.Name)
	case len(q.Fields) == 0:
		return fmt.Errorf("query %s: no field", q.Name)
	case !q.End.After(q.Start):
		return fmt.Errorf("query %s: window [%s, %s) is empty", q.Name, q.Start.Format(time.RFC3339Nano), q.End.Format(time.RFC3339Nano))
	case q.Agg > Count:
		return fmt.Errorf("query %s: unknown aggregate %d", q.Name, q.Agg)
	case q.Agg == Rows && (len(q.GroupBy) > 0 || q.Bucket != 0):
		return fmt.Errorf("query %s: rows are returned as they are, without groups or buckets", q.Name)
	case q.Bucket < 0 || (q.Bucket > 0 && (24*time.Hour)%q.Bucket != 0):
		return fmt.Errorf("query %s: bucket %s does not divide a day", q.Name, q.Bucket)
	case q.Limit < 0:
		return fmt.Errorf("query %s: negative limit", q.Name)
	}
	return q.validateStages()
}

// String is the query in a form for errors and logs, dialect-free.
func (q *Query) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s(%s) from %s [%s, %s)", q.Name, q.Agg, strings.Join(q.Fields, ","), q.Table,
		q.Start.UTC().Format(time.RFC3339Nano), q.End.UTC().Format(time.RFC3339Nano))
	for _, m := range q.Where {
		fmt.Fprintf(&b, " %s in (%s)", m.Tag, strings.Join(m.Values, ","))
	}
	if f := q.Filter; f != nil {
		op := ">"
		if f.Below {
			op = "<"
		}
		fmt.Fprintf(&b, " %s %s %g", f.Field, op, f.Value)
	}
	if len(q.GroupBy) > 0 {
		fmt.Fprintf(&b, " by %s", strings.Join(q.GroupBy, ","))
	}
	if q.Bucket > 0 {
		fmt.Fprintf(&b, " every %s", q.Bucket)
	}
	if q.Limit > 0 {
		fmt.Fprintf(&b, " newest %d", q.Limit)
	}
	if q.Having != nil {
		fmt.Fprintf(&b, " %s", q.Having)
	}
	if q.Change != nil {
		fmt.Fprintf(&b, " then %s", q.Change)
	}
	for _, r := range q.Rollups {
		fmt.Fprintf(&b, " then %s", r.Agg)
		if len(r.GroupBy) > 0 {
			fmt.Fprintf(&b, " by %s", strings.Join(r.GroupBy, ","))
		}
		if r.Bucket > 0 {
			fmt.Fprintf(&b, " every %s", r.Bucket)
		}
		if r.Scale != 0 {
			fmt.Fprintf(&b, " times %g", r.Scale)
		}
		if r.Having != nil {
			fmt.Fprintf(&b, " %s", r.Having)
		}
	}
	return b.String()
}

// Row is one row of an Answer.
type Row struct {
	// Group holds the values of the query's GroupBy tags, in their order.
	Group []string
	// Time is the bucket's start (Bucket set), the row's time (Agg Rows or
	// Last), and zero otherwise.
	Time time.Time
	// Values holds one value per query field; NaN is NULL.
	Values []float64
}

// Answer is what a database answered to a Query, in any row order.
type Answer struct {
	Rows []Row
}

// Sort puts the rows in one order (by group, then time, then values) so that two
// answers to one query can be compared row by row.
func (a *Answer) Sort() {
	// Rows that compare equal are alike in every part compared: no
	// stable sort needed.
	slices.SortFunc(a.Rows, func(x, y Row) int {
		if c := slices.Compare(x.Group, y.Group); c != 0 {
			return c
		}
		if c := x.Time.Compare(y.Time); c != 0 {
			return c
		}
		// Rows of several series at one time (Agg Rows without a group):
		// in the order of their values, NULL first.
		return slices.CompareFunc(x.Values, y.Values, func(a, b float64) int {
			switch {
			case math.IsNaN(a) || math.IsNaN(b):
				return btoi(!math.IsNaN(a)) - btoi(!math.IsNaN(b))
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		})
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Diff compares got with want (both sorted) and describes their first
// difference, or returns "" when they agree. Values agree when equal, both
// NaN, or within tol relative to the larger magnitude (an average summed in
// another order differs in its last bits).
func Diff(want, got *Answer, tol float64) string {
	for i := 0; i < len(want.Rows) || i < len(got.Rows); i++ {
		switch {
		case i >= len(got.Rows):
			return fmt.Sprintf("%d rows, want %d: missing %s", len(got.Rows), len(want.Rows), want.Rows[i])
		case i >= len(want.Rows):
			return fmt.Sprintf("%d rows, want %d: extra %s", len(got.Rows), len(want.Rows), got.Rows[i])
		}
		w, g := want.Rows[i], got.Rows[i]
		if !slices.Equal(w.Group, g.Group) || !w.Time.Equal(g.Time) || len(w.Values) != len(g.Values) {
			return fmt.Sprintf("row %d is %s, want %s", i, g, w)
		}
		for j := range w.Values {
			if !near(w.Values[j], g.Values[j], tol) {
				return fmt.Sprintf("row %d is %s, want %s", i, g, w)
			}
		}
	}
	return ""
}

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func (r Row) String() string {
	var b strings.Builder
	b.WriteByte('{')
	if len(r.Group) > 0 {
		fmt.Fprintf(&b, "%s ", strings.Join(r.Group, ","))
	}
	if !r.Time.IsZero() {
		fmt.Fprintf(&b, "%s ", r.Time.UTC().Format(time.RFC3339Nano))
	}
	for i, v := range r.Values {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%g", v)
	}
	b.WriteByte('}')
	return b.String()
}
