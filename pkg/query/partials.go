package query

import (
	"errors"
	"math"
	"slices"
	"strings"
	"time"
)

// Partials is Eval kept up to date as rows arrive, for the queries of one
// shape (everything of a Query but its window and the values of its
// Where): each row is read once, by Add, into partial answers per series
// (the values of the Where and GroupBy tags) and grain of time, and
// Answer merges the partials of any window whose bounds are multiples of
// the grain. Answer(q) is Eval(q, the rows added) for such a q (sums in
// another order: within a relative 1e-12 or so), so that the query load
// can check many answers for the cost of reading the input once.
//
// Its memory grows with the series times the grains kept (Forget drops
// the older ones), and for Agg Rows with the rows that pass the Filter.
// A Partials is used by one goroutine at a time.
type Partials struct {
	shape   Query
	grain   int64 // ns
	keyTags []string
	groupAt []int // GroupBy tag i is keyTags[groupAt[i]]
	nf      int
	series  map[string]*rseries
	byID    []*rseries // AddRowID's series by the caller's number
	key     []byte
	from    int64 // the first grain kept (grain index)
	// Bind's vectors: where AddRow finds each key tag, each field and
	// the Filter's field (-1: none).
	tagAt, fieldAt []int
	filterAt       int
	own            bool      // bound to Add's vectors
	slab           []float64 // Agg Rows: where the next rows' values go
	// Add's vectors.
	tagBuf []string
	hasTag []bool
	valBuf []float64
	hasBuf []bool
}

// rseries are the partials of one series: cell i is grain base+i.
type rseries struct {
	tags  []string // values of keyTags
	group string   // the GroupBy values, joined
	base  int64
	kept  []int64   // rows kept per cell
	vals  []float64 // nf per cell: Max, Min, Last: the value; Avg: the sum
	n     []int64   // nf per cell: the values counted
	last  []int64   // Last: the time of the row kept per cell (ns)
	rows  []Row     // Agg Rows: the rows kept, as they arrived
}

// NewPartials is the Partials of the queries shaped as sample, in grains of
// grain (a bucket of sample must be a multiple of it).
func NewPartials(sample *Query, grain time.Duration) (*Partials, error) {
	if grain <= 0 {
		return nil, errors.New("rollup: the grain is not positive")
	}
	if sample.Bucket > 0 && sample.Bucket%grain != 0 {
		return nil, errors.New("rollup: " + sample.Name + ": bucket " + sample.Bucket.String() + " is not a multiple of the grain " + grain.String())
	}
	r := &Partials{shape: *sample, grain: int64(grain), nf: len(sample.Fields), series: map[string]*rseries{}, from: math.MinInt64}
	r.shape.Start, r.shape.End = time.Time{}, time.Time{}
	for _, m := range sample.Where {
		r.keyTags = append(r.keyTags, m.Tag)
	}
	for _, g := range sample.GroupBy {
		i := slices.Index(r.keyTags, g)
		if i < 0 {
			i = len(r.keyTags)
			r.keyTags = append(r.keyTags, g)
		}
		r.groupAt = append(r.groupAt, i)
	}
	if err := r.Bind(r.Tags(), r.Fields()); err != nil {
		return nil, err
	}
	return r, nil
}

// Bind says in which order AddRow gets a row's tags and fields: tags
// and fields must hold every name of Tags and Fields.
func (r *Partials) Bind(tags, fields []string) error {
	r.tagAt, r.fieldAt, r.filterAt, r.own = r.tagAt[:0], r.fieldAt[:0], -1, false
	for _, t := range r.keyTags {
		i := slices.Index(tags, t)
		if i < 0 {
			return errors.New("rollup: " + r.shape.Name + ": tag " + t + " is not bound")
		}
		r.tagAt = append(r.tagAt, i)
	}
	for _, f := range r.shape.Fields {
		i := slices.Index(fields, f)
		if i < 0 {
			return errors.New("rollup: " + r.shape.Name + ": field " + f + " is not bound")
		}
		r.fieldAt = append(r.fieldAt, i)
	}
	if f := r.shape.Filter; f != nil {
		if r.filterAt = slices.Index(fields, f.Field); r.filterAt < 0 {
			return errors.New("rollup: " + r.shape.Name + ": field " + f.Field + " is not bound")
		}
	}
	return nil
}

// SameShape reports whether a and b differ at most in their window and in
// the values of their Where.
func SameShape(a, b *Query) bool {
	if a.Table != b.Table || a.Agg != b.Agg || a.Bucket != b.Bucket || a.Limit != b.Limit ||
		!slices.Equal(a.Fields, b.Fields) || !slices.Equal(a.GroupBy, b.GroupBy) || len(a.Where) != len(b.Where) {
		return false
	}
	for i := range a.Where {
		if a.Where[i].Tag != b.Where[i].Tag {
			return false
		}
	}
	if (a.Filter == nil) != (b.Filter == nil) {
		return false
	}
	return a.Filter == nil || *a.Filter == *b.Filter
}

// Table is the table of the shape.
func (r *Partials) Table() string { return r.shape.Table }

// Tags is the tags Add reads of a row: the others may be left out.
func (r *Partials) Tags() []string { return r.keyTags }

// Fields is the fields Add reads.
func (r *Partials) Fields() []string {
	f := slices.Clone(r.shape.Fields)
	if r.shape.Filter != nil && !slices.Contains(f, r.shape.Filter.Field) {
		f = append(f, r.shape.Filter.Field)
	}
	return f
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Add reads row p of the shape's table (the caller picks the table).
// It resets the vectors of Bind to its own.
func (r *Partials) Add(p Point) {
	tags, fields := r.Tags(), r.Fields()
	if !r.own {
		if err := r.Bind(tags, fields); err != nil {
			panic(err) // the rollup's own names
		}
		r.own = true
		r.tagBuf, r.valBuf, r.hasBuf = make([]string, len(tags)), make([]float64, len(fields)), make([]bool, len(fields))
	}
	r.hasTag = r.hasTag[:0]
	for i, t := range tags {
		v, ok := p.Tags[t]
		r.tagBuf[i] = v
		r.hasTag = append(r.hasTag, ok)
	}
	for i, f := range fields {
		r.valBuf[i], r.hasBuf[i] = p.Fields[f]
	}
	r.AddRow(p.Time.UnixNano(), r.tagBuf, r.hasTag, r.valBuf, r.hasBuf)
}

// Keeps reports whether a row with these fields (in the order given to
// Bind) passes the shape's Filter: AddRow ignores a row it does not keep,
// so a caller may read the other fields only of the rows it keeps.
func (r *Partials) Keeps(vals []float64, has []bool) bool {
	f := r.shape.Filter
	if f == nil {
		return true
	}
	v := vals[r.filterAt]
	return has[r.filterAt] && !math.IsNaN(v) && (f.Below && v < f.Value || !f.Below && v > f.Value)
}

// Filter is the field of the shape's Filter ("" without one).
func (r *Partials) Filter() string {
	if r.shape.Filter == nil {
		return ""
	}
	return r.shape.Filter.Field
}

// AddRow reads a row of the shape's table at ns (Unix nanoseconds) whose
// tags (hasTag: set) and fields (has: set) come in the order given to
// Bind. It is Add without maps.
func (r *Partials) AddRow(ns int64, tags []string, hasTag []bool, vals []float64, has []bool) {
	r.AddRowID(-1, ns, tags, hasTag, vals, has)
}

// AddRowID is AddRow for a caller that numbers the series it reads: id
// (from 0, dense) is the same for every row with the same tags, and
// differs between rows whose tags the shape tells apart; -1: not
// numbered. It spares a lookup per row.
func (r *Partials) AddRowID(id int, ns int64, tags []string, hasTag []bool, vals []float64, has []bool) {
	q := &r.shape
	if !r.Keeps(vals, has) {
		return
	}
	any := false
	for _, i := range r.fieldAt {
		if has[i] {
			any = true
			break
		}
	}
	if !any {
		return
	}
	for i := range q.Where {
		if !hasTag[r.tagAt[i]] {
			return
		}
	}
	g := floorDiv(ns, r.grain)
	if g < r.from {
		return // before every window Answer accepts
	}
	var s *rseries
	if id >= 0 && id < len(r.byID) {
		s = r.byID[id]
	}
	if s == nil {
		s = r.seriesOf(tags)
		if id >= 0 {
			if id >= len(r.byID) {
				r.byID = append(r.byID, make([]*rseries, id+1-len(r.byID))...)
			}
			r.byID[id] = s
		}
	}
	value := func(i int) float64 {
		if !has[r.fieldAt[i]] {
			return math.NaN()
		}
		return vals[r.fieldAt[i]]
	}
	if q.Agg == Rows {
		if len(r.slab) < r.nf { // the rows' values, cut from blocks
			r.slab = make([]float64, 512*r.nf)
		}
		row := Row{Time: time.Unix(0, ns).UTC(), Values: r.slab[:r.nf:r.nf]}
		r.slab = r.slab[r.nf:]
		for i := range row.Values {
			row.Values[i] = value(i)
		}
		s.rows = append(s.rows, row)
		return
	}
	// Rows come mostly in order: their cell is there, found without a call
	// (g below base wraps past every length).
	c := int(g - s.base)
	if uint64(g-s.base) >= uint64(len(s.kept)) {
		c = s.grow(g, r.nf)
	}
	first := s.kept[c] == 0
	s.kept[c]++
	cv, n := s.vals[c*r.nf:(c+1)*r.nf], s.n[c*r.nf:(c+1)*r.nf]
	if q.Agg == Last {
		if !first && ns <= s.last[c] {
			return
		}
		s.last[c] = ns
		for i := range cv {
			cv[i] = value(i)
		}
		return
	}
	for i, fi := range r.fieldAt {
		v := vals[fi]
		if !has[fi] || math.IsNaN(v) {
			continue
		}
		switch {
		case n[i] == 0 && q.Agg != Count:
			cv[i] = v
		case q.Agg == Max:
			cv[i] = math.Max(cv[i], v)
		case q.Agg == Min:
			cv[i] = math.Min(cv[i], v)
		case q.Agg == Avg:
			cv[i] += v
		}
		n[i]++
	}
}

func (r *Partials) seriesOf(tags []string) *rseries {
	var s *rseries
	if len(r.keyTags) == 1 {
		s = r.series[tags[r.tagAt[0]]]
	} else {
		r.key = r.key[:0]
		for _, i := range r.tagAt {
			r.key = append(r.key, tags[i]...)
			r.key = append(r.key, 0)
		}
		s = r.series[string(r.key)]
	}
	if s != nil {
		return s
	}
	s = &rseries{tags: make([]string, len(r.keyTags))}
	var group strings.Builder
	for i, ti := range r.tagAt {
		s.tags[i] = tags[ti]
	}
	for _, i := range r.groupAt {
		group.WriteString(s.tags[i])
		group.WriteByte(0)
	}
	s.group = group.String()
	if len(r.keyTags) == 1 {
		r.series[s.tags[0]] = s
	} else {
		r.series[string(r.key)] = s
	}
	return s
}

// grow makes grain g's cell (of nf values) and returns its index.
func (s *rseries) grow(g int64, nf int) int {
	switch {
	case len(s.kept) == 0:
		s.base = g
	case g < s.base:
		k := int(s.base - g)
		s.kept = slices.Insert(s.kept, 0, make([]int64, k)...)
		s.vals = slices.Insert(s.vals, 0, make([]float64, k*nf)...)
		s.n = slices.Insert(s.n, 0, make([]int64, k*nf)...)
		s.last = slices.Insert(s.last, 0, make([]int64, k)...)
		s.base = g
	}
	if i, l := int(g-s.base), len(s.kept); l <= i {
		k := i + 1 - l
		s.kept, s.last = extend(s.kept, k), extend(s.last, k)
		s.vals, s.n = extend(s.vals, k*nf), extend(s.n, k*nf)
	}
	return int(g - s.base)
}

// extend appends k zeros to x. A series gains a cell a grain at a time:
// the capacity doubles (append grows a long slice by a quarter, copying
// it each time).
func extend[T int64 | float64](x []T, k int) []T {
	l := len(x)
	if l+k > cap(x) {
		x = slices.Grow(x, max(k, l))
	}
	x = x[:l+k]
	clear(x[l:])
	return x
}

// Forget drops the rows before t (rounded down to a grain): Answer then
// refuses a window that starts before.
func (r *Partials) Forget(t time.Time) {
	g := floorDiv(t.UnixNano(), r.grain)
	if g <= r.from {
		return
	}
	r.from = g
	clear(r.byID) // a series may be dropped below
	for k, s := range r.series {
		if r.shape.Agg == Rows {
			s.rows = slices.DeleteFunc(s.rows, func(row Row) bool { return floorDiv(row.Time.UnixNano(), r.grain) < g })
			if len(s.rows) == 0 {
				delete(r.series, k)
			}
			continue
		}
		d := min(int(g-s.base), len(s.kept))
		if d <= 0 {
			continue
		}
		s.kept, s.last = slices.Delete(s.kept, 0, d), slices.Delete(s.last, 0, d)
		s.vals, s.n = slices.Delete(s.vals, 0, d*r.nf), slices.Delete(s.n, 0, d*r.nf)
		s.base += int64(d)
		if len(s.kept) == 0 {
			delete(r.series, k)
		}
	}
}

// Answer is Eval(q, the rows added) when q has the Partials's shape
// (SameShape) and a window of whole grains not before what Forget
// dropped; ok is false otherwise.
func (r *Partials) Answer(q *Query) (ans *Answer, ok bool) {
	start, end := q.Start.UnixNano(), q.End.UnixNano()
	if !SameShape(q, &r.shape) || start%r.grain != 0 || end%r.grain != 0 || floorDiv(start, r.grain) < r.from {
		return nil, false
	}
	gs, ge := floorDiv(start, r.grain), floorDiv(end, r.grain)
	type gkey struct {
		group  string
		bucket int64
	}
	type acc struct {
		group []string
		time  time.Time
		last  int64
		vals  []float64
		n     []int64
		seen  bool
	}
	groups := map[gkey]*acc{}
	// The accumulators' vectors are cut from slabs: an answer has one per
	// group and bucket, hundreds over a long window.
	var valSlab []float64
	var nSlab []int64
	newAcc := func() *acc {
		if len(valSlab) < r.nf {
			valSlab, nSlab = make([]float64, 64*r.nf), make([]int64, 64*r.nf)
		}
		a := &acc{vals: valSlab[:r.nf:r.nf], n: nSlab[:r.nf:r.nf]}
		valSlab, nSlab = valSlab[r.nf:], nSlab[r.nf:]
		return a
	}
	ans = &Answer{}
	for _, s := range r.series {
		if !r.where(q, s) {
			continue
		}
		if q.Agg == Rows {
			for _, row := range s.rows {
				if t := row.Time.UnixNano(); t >= start && t < end {
					ans.Rows = append(ans.Rows, row)
				}
			}
			continue
		}
		lo, hi := max(gs, s.base), min(ge, s.base+int64(len(s.kept)))
		// One bucket's grains lie side by side: each run of them is one
		// accumulator (one lookup), then one pass per field over the run.
		for g := lo; g < hi; {
			k := gkey{group: s.group}
			runEnd := hi
			if q.Bucket > 0 {
				k.bucket = floorDiv(g*r.grain, int64(q.Bucket)) * int64(q.Bucket) // BucketStart
				runEnd = min(hi, (k.bucket+int64(q.Bucket))/r.grain)
			}
			c0, c1 := int(g-s.base), int(runEnd-s.base)
			g = runEnd
			if !slices.ContainsFunc(s.kept[c0:c1], func(k int64) bool { return k != 0 }) {
				continue
			}
			a := groups[k]
			if a == nil {
				a = newAcc()
				for _, i := range r.groupAt {
					a.group = append(a.group, s.tags[i])
				}
				if q.Bucket > 0 {
					a.time = time.Unix(0, k.bucket).UTC()
				}
				for i := range a.vals {
					a.vals[i] = math.NaN()
				}
				groups[k] = a
			}
			if q.Agg == Last {
				for c := c0; c < c1; c++ {
					if s.kept[c] != 0 && (!a.seen || s.last[c] > a.last) {
						a.last = s.last[c]
						copy(a.vals, s.vals[c*r.nf:(c+1)*r.nf])
						a.seen = true
					}
				}
				continue
			}
			a.seen = true
			for i := range r.nf {
				av, an := a.vals[i], a.n[i]
				for c := c0; c < c1; c++ {
					n := s.n[c*r.nf+i]
					if n == 0 || s.kept[c] == 0 {
						continue
					}
					v := s.vals[c*r.nf+i]
					switch {
					case an == 0 && q.Agg != Count:
						av = v
					case q.Agg == Max:
						av = math.Max(av, v)
					case q.Agg == Min:
						av = math.Min(av, v)
					case q.Agg == Avg:
						av += v
					}
					an += n
				}
				a.vals[i], a.n[i] = av, an
			}
		}
	}
	if q.Agg == Rows {
		if q.Limit > 0 {
			ans.Rows = newest(ans.Rows, q.Limit)
		}
		ans.Sort()
		return ans, true
	}
	for _, a := range groups {
		row := Row{Group: a.group, Time: a.time, Values: a.vals}
		switch q.Agg {
		case Avg:
			for i := range row.Values {
				if a.n[i] > 0 {
					row.Values[i] /= float64(a.n[i])
				}
			}
		case Count:
			for i := range row.Values {
				row.Values[i] = float64(a.n[i])
			}
		case Last:
			if q.Bucket == 0 {
				row.Time = time.Unix(0, a.last).UTC()
			}
		}
		ans.Rows = append(ans.Rows, row)
	}
	ans.Sort()
	if q.Limit > 0 && q.Bucket > 0 {
		ans.Rows = NewestPerGroup(ans.Rows, q.Limit)
	}
	return ans, true
}

// where reports whether series s passes q's Where.
func (r *Partials) where(q *Query, s *rseries) bool {
	for i, m := range q.Where {
		if !slices.Contains(m.Values, s.tags[i]) {
			return false
		}
	}
	return true
}
