package fingerprint

import (
	"math"
	"sort"
	"strconv"
)

// Options bound what an accumulator remembers.
type Options struct {
	// SeriesLimit is how many series a table counts exactly before it
	// estimates (DefaultSeriesLimit when 0).
	SeriesLimit int
	// Keys asks for the detection of rows whose (series, timestamp) key an
	// earlier row of the input already has: what an overwriting database
	// stores as one point. KeyLimit bounds it (DefaultKeyLimit when 0).
	Keys     bool
	KeyLimit int
	// KeySink, when set, is asked once per table for a function that is
	// given the hash of every timed row's (series, timestamp) key
	// (HashPair), instead of Keys' set: a caller that counts the distinct
	// keys itself, in bounded memory (the runner's distinct-key pass).
	KeySink func(table string) func(key uint64)
}

// DefaultKeyLimit is how many (series, timestamp) keys a table remembers
// exactly to find repeated ones (a set of 64-bit hashes at most 3/4 full:
// at the limit 2^24 slots, 128 MiB); beyond it repeats can no longer be
// ruled out. 12M covers a 10M-row table.
const DefaultKeyLimit = 12_000_000

// Acc accumulates the fingerprints of the tables a worker reads. One Acc
// belongs to one goroutine; Merge combines the workers' at the end.
type Acc struct {
	opt    Options
	tables map[string]*TableAcc
	last   *TableAcc
	failed string // why the content cannot be proven (Fail)
}

// Fail records that what was read cannot be fingerprinted (a value the
// reader could not decode), so content verification must not be trusted;
// the first reason is kept.
func (a *Acc) Fail(reason string) {
	if a.failed == "" {
		a.failed = reason
	}
}

// Failed returns the reason given to Fail, or "".
func (a *Acc) Failed() string { return a.failed }

// NewAcc returns an empty accumulator.
func NewAcc(opt Options) *Acc {
	if opt.SeriesLimit <= 0 {
		opt.SeriesLimit = DefaultSeriesLimit
	}
	if opt.KeyLimit <= 0 {
		opt.KeyLimit = DefaultKeyLimit
	}
	return &Acc{opt: opt, tables: make(map[string]*TableAcc)}
}

// Table returns the accumulator of the named table (name is not retained).
func (a *Acc) Table(name []byte) *TableAcc {
	if t := a.last; t != nil && t.name == string(name) {
		return t
	}
	t := a.tables[string(name)]
	if t == nil {
		t = a.newTable(string(name))
	}
	a.last = t
	return t
}

func (a *Acc) newTable(name string) *TableAcc {
	t := &TableAcc{name: name, series: newSeriesSet(a.opt.SeriesLimit), fields: make(map[string]*FieldAcc)}
	switch {
	case a.opt.KeySink != nil:
		t.sink = a.opt.KeySink(name)
	case a.opt.Keys:
		t.keys = newKeySet(a.opt.KeyLimit)
	}
	a.tables[name] = t
	return t
}

// Merge adds o's rows to a; the result does not depend on the order in
// which accumulators are merged (counts and exact sums are sums, series
// and keys unions, float sums compensated: see Field).
func (a *Acc) Merge(o *Acc) {
	a.Fail(o.failed)
	for name, ot := range o.tables {
		t := a.tables[name]
		if t == nil {
			t = a.newTable(name)
		}
		t.merge(ot)
	}
}

// Rows returns the number of rows read per table.
func (a *Acc) Rows() map[string]int64 {
	m := make(map[string]int64, len(a.tables))
	for n, t := range a.tables {
		m[n] = t.rows
	}
	return m
}

// Result returns what was read into each table, by name.
func (a *Acc) Result() map[string]*Read {
	m := make(map[string]*Read, len(a.tables))
	for n, t := range a.tables {
		m[n] = t.result()
	}
	return m
}

// Scale multiplies the time range by unit (nanoseconds per unit of the
// input's timestamps: ILP lines in the precision the loader was given).
func (r *Read) Scale(unit int64) {
	if unit > 1 {
		r.MinTime *= unit
		r.MaxTime *= unit
	}
}

// Read is what the input holds for one table: its fingerprint and, when
// keys were tracked, how many rows repeat an earlier row's (series,
// timestamp) key.
type Read struct {
	Table
	// KeysTracked: Repeats was counted. KeysExact: the count is exact up to
	// 64-bit hash collisions, which can only make it larger (a collision
	// is a false repeat, about n²/2^65 for n keys); false when the table
	// had more keys than the limit and repeats could not be ruled out.
	KeysTracked, KeysExact bool
	Repeats                int64
	// Tags are the tag keys the table's series carry, sorted.
	Tags []string
	// NoTime counts rows without a timestamp (ILP lines the server stamps
	// on arrival): the time range then cannot be checked.
	NoTime int64
}

// TableAcc accumulates one table. Call Row for each row and then Field
// for each of its fields.
type TableAcc struct {
	name             string
	rows             int64
	minTime, maxTime int64
	noTime           int64
	series           *seriesSet
	keys             *keySet
	sink             func(key uint64) // Options.KeySink's
	fields           map[string]*FieldAcc
	tags             map[string]struct{}
	// order caches the fields of the previous row in order, so that a row
	// shaped like the one before finds its fields without a map lookup.
	order []*FieldAcc
	next  int
}

// Row counts one row of the series whose tag set hashes to series (see
// TagSet) at time ts (nanoseconds since the epoch, or the unit of the
// input: see Read.Scale). A row's fields may be given before or after its
// Row call, as long as each row calls Row once.
func (t *TableAcc) Row(series uint64, ts int64) {
	t.series.add(series)
	t.RowKnown(series, ts)
}

// RowKnown is Row for a series this accumulator has been given before
// (the reader caches what it has seen): the series set is not touched.
func (t *TableAcc) RowKnown(series uint64, ts int64) {
	if t.rows == t.noTime || ts < t.minTime {
		t.minTime = ts
	}
	if t.rows == t.noTime || ts > t.maxTime {
		t.maxTime = ts
	}
	t.rows++
	if t.keys != nil {
		t.keys.add(HashPair(series, uint64(ts)))
	} else if t.sink != nil {
		t.sink(HashPair(series, uint64(ts)))
	}
	t.next = 0
}

// Tag records that the table's series carry tag key (the reader calls it
// once per series it meets; the key is not retained).
func (t *TableAcc) Tag(key []byte) {
	if _, ok := t.tags[string(key)]; !ok {
		if t.tags == nil {
			t.tags = make(map[string]struct{})
		}
		t.tags[string(key)] = struct{}{}
	}
}

// RowNoTime counts a row without a timestamp (the database gives it one).
func (t *TableAcc) RowNoTime(series uint64) {
	t.rows++
	t.noTime++
	t.series.add(series)
	t.next = 0
}

// Field returns the accumulator of the named field of the current row
// (name is not retained). A field seen with another kind before is marked
// mixed: its aggregates are then not compared.
func (t *TableAcc) Field(name []byte, kind Kind) *FieldAcc {
	if t.next < len(t.order) {
		if f := t.order[t.next]; f.name == string(name) && f.kind == kind {
			t.next++
			return f
		}
	}
	f := t.fields[string(name)]
	if f == nil {
		f = newFieldAcc(string(name), kind)
		t.fields[f.name] = f
	} else if f.kind != kind {
		f.mixed, f.kind = true, mixedKind(f.kind, kind)
	}
	if t.next < len(t.order) {
		t.order[t.next] = f
	} else {
		t.order = append(t.order, f)
	}
	t.next++
	return f
}

func (t *TableAcc) merge(o *TableAcc) {
	if o.rows > o.noTime {
		if t.rows == t.noTime || o.minTime < t.minTime {
			t.minTime = o.minTime
		}
		if t.rows == t.noTime || o.maxTime > t.maxTime {
			t.maxTime = o.maxTime
		}
	}
	t.rows += o.rows
	t.noTime += o.noTime
	t.series.merge(o.series)
	if t.keys != nil && o.keys != nil {
		t.keys.merge(o.keys)
	} else if o.keys != nil {
		t.keys = newKeySet(o.keys.limit)
		t.keys.merge(o.keys)
	}
	for k := range o.tags {
		t.Tag([]byte(k))
	}
	for n, of := range o.fields {
		f := t.fields[n]
		if f == nil {
			f = newFieldAcc(n, of.kind)
			t.fields[n] = f
		}
		f.merge(of)
	}
}

func (t *TableAcc) result() *Read {
	r := &Read{Table: Table{Name: t.name, Rows: t.rows, MinTime: t.minTime, MaxTime: t.maxTime}, NoTime: t.noTime}
	r.Series, r.SeriesExact = t.series.count()
	if t.keys != nil {
		r.KeysTracked, r.KeysExact, r.Repeats = true, !t.keys.over, t.keys.repeats
	}
	for _, f := range t.fields {
		r.Fields = append(r.Fields, f.result())
	}
	for k := range t.tags {
		r.Tags = append(r.Tags, k)
	}
	sort.Strings(r.Tags)
	sort.Slice(r.Fields, func(i, j int) bool { return r.Fields[i].Name < r.Fields[j].Name })
	return r
}

// FieldAcc accumulates one field's non-NULL values.
type FieldAcc struct {
	name  string
	kind  Kind
	mixed bool // seen with more than one kind
	count int64
	// Float: a Neumaier sum (sum + comp), the sum of magnitudes (also
	// kept for integers, to bound a database's float sum of them), and
	// whether a NaN or an infinity was seen (no sum is then compared).
	sum, comp, abs float64
	// dec sums plain decimals exactly, by their number of digits after
	// the point: the value is dec[e].sum / 10^e (Decimal).
	dec       *[len(pow10)]decSum
	nonFinite bool
	isum      Int128
	n         int64 // string bytes or true values
	// The extremes of the values given to Float, Int and Uint, each pair
	// empty (min > max) until one is given (newFieldAcc), so that a value
	// costs two comparisons; nan: a NaN was given (the extremes are then
	// not compared: databases order NaN each their own way). Decimal keeps
	// its own in dec.
	fmin, fmax float64
	imin, imax int64
	umin, umax uint64
	nan        bool
}

func newFieldAcc(name string, kind Kind) *FieldAcc {
	return &FieldAcc{name: name, kind: kind,
		fmin: math.Inf(1), fmax: math.Inf(-1),
		imin: math.MaxInt64, imax: math.MinInt64,
		umin: math.MaxUint64, umax: 0}
}

// Float adds a float value.
func (f *FieldAcc) Float(v float64) {
	f.count++
	if v < f.fmin {
		f.fmin = v
	}
	if v > f.fmax {
		f.fmax = v
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		f.nonFinite = true
		f.nan = f.nan || v != v
		return
	}
	f.add(v)
	f.abs += math.Abs(v)
}

// decSum is the exact sum of decimals with the same number of digits
// after the point, as integers: the signed values and their magnitudes;
// and their extremes, lo and hi (seen: there is one).
type decSum struct {
	sum, abs Int128
	lo, hi   Int128
	seen     bool
}

// extremes adds d's extremes (as float64, each rounded once as a
// database parsing the decimal text rounds it) to lo and hi.
func (d *decSum) extremes(e int, lo, hi *float64) {
	if !d.seen {
		return
	}
	*lo = min(*lo, decFloat(d.lo, e))
	*hi = max(*hi, decFloat(d.hi, e))
}

// decFloat is v / 10^e rounded to the nearest float64.
func decFloat(v Int128, e int) float64 {
	x, _ := strconv.ParseFloat(v.String()+"e-"+strconv.Itoa(e), 64)
	return x
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Decimal adds the float value -1^neg * mant / 10^exp (exp < 23), a
// plain decimal as the input writes it: summed exactly, as integers, and
// rounded once in the result (cheaper than a division and a float sum,
// and independent of order).
func (f *FieldAcc) Decimal(mant uint64, exp int, neg bool) {
	if exp < 0 || exp >= len(pow10) {
		// Rounded once, as a database parses the text (the min and max
		// are compared exactly); not a case the ILP reader gives.
		v, _ := strconv.ParseFloat(strconv.FormatUint(mant, 10)+"e"+strconv.Itoa(-exp), 64)
		if neg {
			v = -v
		}
		f.Float(v)
		return
	}
	f.count++
	if f.dec == nil {
		f.dec = new([len(pow10)]decSum)
	}
	d := &f.dec[exp]
	v := Int128FromUint64(mant)
	if neg {
		v = v.Neg()
	}
	d.sum = d.sum.Add(v)
	d.abs = d.abs.AddUint64(mant)
	if !d.seen || v.Cmp(d.lo) < 0 {
		d.lo = v
	}
	if !d.seen || v.Cmp(d.hi) > 0 {
		d.hi = v
	}
	d.seen = true
}

// add is one Neumaier step.
func (f *FieldAcc) add(v float64) {
	s := f.sum + v
	if math.Abs(f.sum) >= math.Abs(v) {
		f.comp += (f.sum - s) + v
	} else {
		f.comp += (v - s) + f.sum
	}
	f.sum = s
}

// Int adds a signed integer value.
func (f *FieldAcc) Int(v int64) {
	f.count++
	f.isum = f.isum.AddInt64(v)
	f.abs += math.Abs(float64(v))
	if v < f.imin {
		f.imin = v
	}
	if v > f.imax {
		f.imax = v
	}
}

// Uint adds an unsigned integer value.
func (f *FieldAcc) Uint(v uint64) {
	f.count++
	f.isum = f.isum.AddUint64(v)
	f.abs += float64(v)
	if v < f.umin {
		f.umin = v
	}
	if v > f.umax {
		f.umax = v
	}
}

// String adds a string value of n bytes (after unescaping).
func (f *FieldAcc) String(n int) { f.count++; f.n += int64(n) }

// Bool adds a boolean value.
func (f *FieldAcc) Bool(v bool) {
	f.count++
	if v {
		f.n++
	}
}

// mixedKind is the kind a field seen with kinds a and b is asked for:
// the same whatever order the rows and the workers' parts came in (its
// aggregates are not compared, but a database reads the field by its kind,
// and an integer's reading of a float fails). Strings over numbers over
// booleans, a float over an integer.
func mixedKind(a, b Kind) Kind {
	rank := [...]int{Bool: 1, Uint: 2, Int: 3, Float: 4, String: 5}
	if int(a) < len(rank) && int(b) < len(rank) && rank[b] > rank[a] {
		return b
	}
	return a
}

func (f *FieldAcc) merge(o *FieldAcc) {
	if o.kind != f.kind {
		f.mixed, f.kind = true, mixedKind(f.kind, o.kind)
	}
	f.mixed = f.mixed || o.mixed
	f.count += o.count
	f.add(o.sum)
	f.comp += o.comp
	f.abs += o.abs
	f.nonFinite = f.nonFinite || o.nonFinite
	if o.dec != nil {
		if f.dec == nil {
			f.dec = new([len(pow10)]decSum)
		}
		for e := range o.dec {
			d, od := &f.dec[e], &o.dec[e]
			d.sum = d.sum.Add(od.sum)
			d.abs = d.abs.Add(od.abs)
			if od.seen {
				if !d.seen || od.lo.Cmp(d.lo) < 0 {
					d.lo = od.lo
				}
				if !d.seen || od.hi.Cmp(d.hi) > 0 {
					d.hi = od.hi
				}
				d.seen = true
			}
		}
	}
	f.isum = f.isum.Add(o.isum)
	f.n += o.n
	f.fmin, f.fmax = min(f.fmin, o.fmin), max(f.fmax, o.fmax)
	f.imin, f.imax = min(f.imin, o.imin), max(f.imax, o.imax)
	f.umin, f.umax = min(f.umin, o.umin), max(f.umax, o.umax)
	f.nan = f.nan || o.nan
}

func (f *FieldAcc) result() Field {
	r := Field{Name: f.name, Kind: f.kind, Count: f.count}
	switch f.kind {
	case Float:
		r.Sum, r.AbsSum = f.sum+f.comp, f.abs
		if f.dec != nil {
			// The exact decimal sums, each rounded once, added compensated.
			g := FieldAcc{sum: f.sum, comp: f.comp}
			for e := range f.dec {
				if d := &f.dec[e]; d.abs != (Int128{}) {
					g.add(d.sum.Float64() / pow10[e])
					r.AbsSum += d.abs.Float64() / pow10[e]
				}
			}
			r.Sum = g.sum + g.comp
		}
		if f.nonFinite {
			r.Sum = math.NaN()
		}
		lo, hi := f.fmin, f.fmax
		if f.dec != nil {
			for e := range f.dec {
				f.dec[e].extremes(e, &lo, &hi)
			}
		}
		if lo <= hi && !f.nan {
			r.Extremes, r.Min, r.Max = true, lo, hi
		}
	case Int:
		r.IntSum, r.AbsSum = f.isum, f.abs
		if f.imin <= f.imax {
			r.Extremes, r.IntMin, r.IntMax = true, Int128FromInt64(f.imin), Int128FromInt64(f.imax)
		}
	case Uint:
		r.IntSum, r.AbsSum = f.isum, f.abs
		if f.umin <= f.umax {
			r.Extremes, r.IntMin, r.IntMax = true, Int128FromUint64(f.umin), Int128FromUint64(f.umax)
		}
	case String:
		r.Len = f.n
	case Bool:
		r.True = f.n
	}
	if f.mixed {
		r.Count = -1
		r.Extremes, r.Min, r.Max, r.IntMin, r.IntMax = false, 0, 0, Int128{}, Int128{}
	}
	return r
}

// keySet finds repeated (series, timestamp) keys: a set of their hashes
// (open addressing, linear probing, at most 3/4 full) up to limit keys,
// after which it stops remembering (over) and repeats can no longer be
// ruled out. 0 marks an empty slot; the hash 0 is taken as 1.
type keySet struct {
	limit   int
	slots   []uint64
	n       int
	repeats int64
	over    bool
}

func newKeySet(limit int) *keySet { return &keySet{limit: limit, slots: make([]uint64, 1024)} }

func (k *keySet) add(h uint64) {
	if k.over {
		return
	}
	if h == 0 {
		h = 1
	}
	mask := uint64(len(k.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch k.slots[i] {
		case 0:
			if k.n >= k.limit {
				k.over, k.slots = true, nil
				return
			}
			k.slots[i] = h
			k.n++
			if 4*k.n > 3*len(k.slots) {
				k.grow()
			}
			return
		case h:
			k.repeats++
			return
		}
	}
}

func (k *keySet) grow() {
	old := k.slots
	k.slots = make([]uint64, 2*len(old))
	mask := uint64(len(k.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for k.slots[i] != 0 {
			i = (i + 1) & mask
		}
		k.slots[i] = h
	}
}

// merge adds o's keys. The destination is grown first to hold both, and
// o's slots are visited with an odd stride: taken in slot order (which
// is hash order) the keys would pile up behind each other in the
// destination's runs, and the merge would take quadratic time.
func (k *keySet) merge(o *keySet) {
	k.repeats += o.repeats
	if k.over || o.over {
		k.over, k.slots = true, nil
		return
	}
	for want := min(k.n+o.n, k.limit); 4*want > 3*len(k.slots); {
		k.grow()
	}
	n := uint64(len(o.slots))
	step := (n * 5 / 8) | 1
	for i, j := uint64(0), uint64(0); i < n; i, j = i+1, (j+step)&(n-1) {
		if h := o.slots[j]; h != 0 {
			k.add(h)
		}
	}
}
