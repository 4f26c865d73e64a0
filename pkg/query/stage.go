package query

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Having keeps, of a query's aggregated rows (or a Rollup's), those whose
// value Field is above Value (Below false) or below it (Below true); with
// Over set, the value Field divided by the value Over of the same row. A
// NULL value, or a division by NULL or zero, is not kept. Field and Over
// name the row's values: the query's Fields, or "count" for a Count
// rollup's one value.
type Having struct {
	Field string
	Over  string
	Value float64
	Below bool
}

// Rollup aggregates the rows of the stage before it (the query's answer
// after its Having, or the Rollup before) once more: what TSBS's iot
// queries ask of the 10-minute buckets of each truck (how many of them a
// truck drove in, per day, on average).
type Rollup struct {
	// Agg is Count (the stage's rows per group and bucket: one value,
	// "count") or Avg (the mean of each value over those rows, NULLs
	// left out; NULL when all are).
	Agg Agg
	// GroupBy are the groups: tags of the stage before's GroupBy (in any
	// order), one group per distinct combination of their values.
	GroupBy []string
	// Bucket, when not zero, buckets the stage's row times again, epoch
	// aligned: a whole multiple of the stage before's Bucket that divides
	// a day.
	Bucket time.Duration
	// Scale, when not zero, multiplies every value (Count of 10-minute
	// buckets times 1/6: hours).
	Scale float64
	// Having keeps the rollup's rows that pass it.
	Having *Having
}

// Change follows each group's rows of the stage before it (the query's
// aggregated rows after its Having) in time order, one bucket to the next
// bucket that has a row, as TSBS's iot queries follow a truck's 10-minute
// periods with lag and lead. A row is on when its value Field is above
// Value (NULL: off).
//
//   - Runs false ("rises"): one row per on row whose row before is off, at
//     the on row's time, its one value 1: how often a truck broke down.
//   - Runs true ("hours"): one row per run of on rows that follows an off
//     row and that an off row ends, at the run's first row's time, its one
//     value the hours from that time to the ending off row's: the length
//     of a driving session. A run the window cuts (at its first or last
//     row) is not a row, for its length is not known.
type Change struct {
	Field string
	Value float64
	Runs  bool
}

// Column is the name of the one value of a Change's rows.
func (c *Change) Column() string {
	if c.Runs {
		return "hours"
	}
	return "rises"
}

func (c *Change) String() string {
	what := "rises of"
	if c.Runs {
		what = "hours of runs of"
	}
	return fmt.Sprintf("%s %s > %g", what, c.Field, c.Value)
}

// apply is c over rows (sorted: Answer.Sort) whose values are named cols.
func (c *Change) apply(cols []string, rows []Row) []Row {
	at := slices.Index(cols, c.Field)
	on := func(r Row) bool { v := r.Values[at]; return !math.IsNaN(v) && v > c.Value }
	var out []Row
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && slices.Equal(rows[j].Group, rows[i].Group) {
			j++
		}
		run := -1 // the first row of the run of on rows under way, after an off row
		for k := i + 1; k < j; k++ {
			was, is := on(rows[k-1]), on(rows[k])
			switch {
			case !c.Runs && !was && is:
				out = append(out, Row{Group: rows[k].Group, Time: rows[k].Time, Values: []float64{1}})
			case c.Runs && !was && is:
				run = k
			case c.Runs && was && !is && run >= 0:
				out = append(out, Row{Group: rows[run].Group, Time: rows[run].Time, Values: []float64{rows[k].Time.Sub(rows[run].Time).Hours()}})
				run = -1
			}
		}
		i = j
	}
	return out
}

// staged reports whether q has a Having, a Change or Rollups.
func (q *Query) staged() bool { return q.Having != nil || q.Change != nil || len(q.Rollups) > 0 }

// Staged reports whether q has a Having, a Change or Rollups: a target
// whose dialect cannot say them declares such a query unsupported.
func (q *Query) Staged() bool { return q.staged() }

// validateStages says what is wrong with q's Having and Rollups.
func (q *Query) validateStages() error {
	if !q.staged() {
		return nil
	}
	if q.Agg == Rows || q.Limit > 0 {
		return fmt.Errorf("query %s: a Having or Rollup needs an aggregate without a limit", q.Name)
	}
	cols := q.Fields
	if err := checkHaving(q.Name, q.Having, cols); err != nil {
		return err
	}
	if c := q.Change; c != nil {
		switch {
		case q.Bucket == 0:
			return fmt.Errorf("query %s: a change follows buckets: the query has none", q.Name)
		case !slices.Contains(cols, c.Field):
			return fmt.Errorf("query %s: change: %q is not one of %s", q.Name, c.Field, strings.Join(cols, ","))
		case math.IsNaN(c.Value) || math.IsInf(c.Value, 0):
			return fmt.Errorf("query %s: change: threshold %g", q.Name, c.Value)
		}
		cols = []string{c.Column()}
	}
	groups, bucket := q.GroupBy, q.Bucket
	for i, r := range q.Rollups {
		switch {
		case r.Agg != Count && r.Agg != Avg:
			return fmt.Errorf("query %s: rollup %d: %s: a rollup counts or averages", q.Name, i+1, r.Agg)
		case math.IsNaN(r.Scale) || math.IsInf(r.Scale, 0):
			return fmt.Errorf("query %s: rollup %d: scale %g", q.Name, i+1, r.Scale)
		case r.Bucket < 0 || (r.Bucket > 0 && ((24*time.Hour)%r.Bucket != 0 || bucket == 0 || r.Bucket%bucket != 0)):
			return fmt.Errorf("query %s: rollup %d: bucket %s is not a multiple of %s that divides a day", q.Name, i+1, r.Bucket, bucket)
		}
		for _, g := range r.GroupBy {
			if !slices.Contains(groups, g) {
				return fmt.Errorf("query %s: rollup %d: %s is not a group of the stage before (%s)", q.Name, i+1, g, strings.Join(groups, ","))
			}
		}
		if r.Agg == Count {
			cols = []string{"count"}
		}
		if err := checkHaving(q.Name, r.Having, cols); err != nil {
			return err
		}
		groups, bucket = r.GroupBy, r.Bucket
	}
	return nil
}

func checkHaving(name string, h *Having, cols []string) error {
	if h == nil {
		return nil
	}
	switch {
	case !slices.Contains(cols, h.Field):
		return fmt.Errorf("query %s: having: %q is not one of %s", name, h.Field, strings.Join(cols, ","))
	case h.Over != "" && !slices.Contains(cols, h.Over):
		return fmt.Errorf("query %s: having: %q is not one of %s", name, h.Over, strings.Join(cols, ","))
	case math.IsNaN(h.Value) || math.IsInf(h.Value, 0):
		return fmt.Errorf("query %s: having: threshold %g", name, h.Value)
	}
	return nil
}

// Columns are the names of the values of each row of the answer to q:
// its Fields, the Change's column after a Change, or "count" after a Count
// rollup.
func (q *Query) Columns() []string {
	cols := q.Fields
	if q.Change != nil {
		cols = []string{q.Change.Column()}
	}
	for _, r := range q.Rollups {
		if r.Agg == Count {
			cols = []string{"count"}
		}
	}
	return cols
}

// Keeps reports whether h keeps a row of values vals named cols.
func (h *Having) Keeps(cols []string, vals []float64) bool {
	v := vals[slices.Index(cols, h.Field)]
	if h.Over != "" {
		d := vals[slices.Index(cols, h.Over)]
		if d == 0 || math.IsNaN(d) {
			return false
		}
		v /= d
	}
	if math.IsNaN(v) {
		return false
	}
	if h.Below {
		return v < h.Value
	}
	return v > h.Value
}

func (h *Having) String() string {
	v := h.Field
	if h.Over != "" {
		v += "/" + h.Over
	}
	op := ">"
	if h.Below {
		op = "<"
	}
	return fmt.Sprintf("having %s %s %g", v, op, h.Value)
}

// stages applies q's Having and Rollups to its aggregated rows.
func (q *Query) stages(rows []Row) []Row {
	cols := q.Fields
	rows = having(q.Having, cols, rows)
	if c := q.Change; c != nil {
		(&Answer{Rows: rows}).Sort()
		rows = c.apply(cols, rows)
		cols = []string{c.Column()}
	}
	groups := q.GroupBy
	for _, r := range q.Rollups {
		idx := make([]int, len(r.GroupBy))
		for i, g := range r.GroupBy {
			idx[i] = slices.Index(groups, g)
		}
		type acc struct {
			row Row
			n   []int64
			all int64
		}
		width := len(cols)
		if r.Agg == Count {
			width = 1
		}
		accs := map[string]*acc{}
		var order []string
		var key strings.Builder
		for _, in := range rows {
			key.Reset()
			var g []string
			for _, i := range idx {
				g = append(g, in.Group[i])
				key.WriteString(in.Group[i])
				key.WriteByte(0)
			}
			var t time.Time
			if r.Bucket > 0 {
				t = BucketStart(in.Time, r.Bucket)
				key.WriteString(t.Format(time.RFC3339Nano))
			}
			a := accs[key.String()]
			if a == nil {
				a = &acc{row: Row{Group: g, Time: t, Values: make([]float64, width)}, n: make([]int64, width)}
				accs[key.String()] = a
				order = append(order, key.String())
			}
			a.all++
			if r.Agg == Avg {
				for i, v := range in.Values {
					if !math.IsNaN(v) {
						a.row.Values[i] += v
						a.n[i]++
					}
				}
			}
		}
		rows = rows[:0:0]
		for _, k := range order {
			a := accs[k]
			for i := range a.row.Values {
				switch {
				case r.Agg == Count:
					a.row.Values[i] = float64(a.all)
				case a.n[i] == 0:
					a.row.Values[i] = math.NaN()
				default:
					a.row.Values[i] /= float64(a.n[i])
				}
				if r.Scale != 0 {
					a.row.Values[i] *= r.Scale
				}
			}
			rows = append(rows, a.row)
		}
		if r.Agg == Count {
			cols = []string{"count"}
		}
		rows = having(r.Having, cols, rows)
		groups = r.GroupBy
	}
	return rows
}

func having(h *Having, cols []string, rows []Row) []Row {
	if h == nil {
		return rows
	}
	out := rows[:0]
	for _, r := range rows {
		if h.Keeps(cols, r.Values) {
			out = append(out, r)
		}
	}
	return out
}
