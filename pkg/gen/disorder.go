package gen

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tsload/tsload/pkg/format"
)

// Disorder is the out-of-order, late and repeated rows that generate_data
// writes on demand (docs/generate.md, "Out-of-order, late and repeated
// rows"). The zero value writes every series in time order, each row once:
// the output is then byte for byte what it was before these settings
// existed.
//
// The decisions are drawn row by row from one more random stream per
// series, keyed by (seed, table, entity) like the series' values, so they
// do not depend on the worker count or the shard, and the values of the
// rows do not depend on them.
type Disorder struct {
	// OutOfOrder is the fraction of rows written after rows of their
	// series with a later time: such a row is held back by k epochs, k
	// uniform in 1..OutOfOrderWindow/Interval, and written with its
	// series' rows of that later epoch.
	OutOfOrder float64
	// OutOfOrderWindow bounds how far back such a row is (0:
	// DefaultOutOfOrderWindow); at least one interval.
	OutOfOrderWindow time.Duration
	// Late is the fraction of rows written LateBy after their time (a
	// device that comes back online); a row is either out of order or
	// late, so OutOfOrder + Late is at most 1.
	Late float64
	// LateBy is how late (0: DefaultLateBy); at least one interval.
	LateBy time.Duration
	// Repeat is the fraction of rows written twice in a row, with the
	// same series and time: the same values, or with RepeatChanges new
	// ones (each non-NULL float field + 1, each integer field + 1).
	Repeat        float64
	RepeatChanges bool
}

// Defaults of the windows.
const (
	DefaultOutOfOrderWindow = time.Hour
	DefaultLateBy           = 24 * time.Hour
)

// Enabled reports whether any row is out of order, late or repeated.
func (d Disorder) Enabled() bool { return d.OutOfOrder > 0 || d.Late > 0 || d.Repeat > 0 }

// normalize checks d against the interval and fills in the defaults of the
// windows that are used.
func (d *Disorder) normalize(interval time.Duration) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"out-of-order", d.OutOfOrder}, {"late", d.Late}, {"repeat", d.Repeat}} {
		if !(f.v >= 0 && f.v <= 1) { // also refuses NaN
			return fmt.Errorf("--%s %v: want a fraction from 0 to 1", f.name, f.v)
		}
	}
	if d.OutOfOrder+d.Late > 1 {
		return fmt.Errorf("--out-of-order %v and --late %v: a row is either out of order or late, so they add up to at most 1", d.OutOfOrder, d.Late)
	}
	if d.RepeatChanges && d.Repeat == 0 {
		return fmt.Errorf("--repeat-changes needs --repeat")
	}
	check := func(name string, v *time.Duration, def time.Duration, used bool) error {
		if *v < 0 {
			return fmt.Errorf("--%s %v: must be positive", name, *v)
		}
		if *v == 0 && used {
			*v = def
		}
		if used && *v < interval {
			return fmt.Errorf("--%s %v: shorter than the interval (%v)", name, *v, interval)
		}
		return nil
	}
	if err := check("out-of-order-window", &d.OutOfOrderWindow, DefaultOutOfOrderWindow, d.OutOfOrder > 0); err != nil {
		return err
	}
	return check("late-by", &d.LateBy, DefaultLateBy, d.Late > 0)
}

// heldRow is an encoded row written at a later epoch.
type heldRow struct {
	due      int64 // the first epoch it may be written at
	deadline int64 // the last
	ns       int64 // its time
	seq      int64 // order of holding: a repeat after its original
	b        []byte
}

// heldSeries is what one series holds back.
type heldSeries struct {
	ooo    []heldRow // out of order, unordered
	late   []heldRow // late, in due (and deadline) order from lateHead
	head   int
	anchor bool // a row of this epoch's time was written on time
}

// disorder applies a Disorder to the rows of one group. For each row it
// draws from the series' stream whether the row is held back (out of order
// or late) and whether it is repeated. A held row is written after a row
// of its series with a later time: with the first row of the series that
// is written on time at or after its due epoch, after that row and the
// series' other rows of that epoch, in descending time order, so that each
// is behind the row written just before it. So that no row waits longer
// than its bound (the window; late by at most twice LateBy), the row of
// the epoch at which a held row's deadline falls is written on time; a
// series without a row at that epoch (iot's missing rows) writes its held
// rows then anyway.
//
// Memory: the held rows, about series x (OutOfOrder x window/2 +
// Late x LateBy) / interval encoded rows.
type disorder struct {
	d      *Disorder
	window int64 // epochs
	lateBy int64 // epochs
	lo     int   // first entity of the group
	pcg    []pcgState
	r      *rng
	s      []heldSeries
	// the series whose held rows of this epoch were looked at
	flushed int
	seq     int64
	free    [][]byte
	due     []heldRow // scratch
	fl      []float64 // scratch for RepeatChanges
	il      []int64
}

func newDisorder(d *Disorder, seed uint64, interval time.Duration, table, lo, hi int) *disorder {
	x := &disorder{d: d, lo: lo, pcg: make([]pcgState, hi-lo), s: make([]heldSeries, hi-lo), r: newRNG()}
	x.window = max(1, int64(d.OutOfOrderWindow/interval))
	x.lateBy = max(1, int64(d.LateBy/interval))
	for k := range x.pcg {
		seedPCG(&x.pcg[k].PCG, seed, streamDisorder, uint64(table), uint64(lo+k))
	}
	return x
}

// add writes (or holds) row, a row of series c.ent.
func (x *disorder) add(c *epochCtx, u *unit, row *format.Row) error {
	k := c.ent - x.lo
	x.release(c, u, k)
	r := x.r
	r.use(&x.pcg[k].PCG)
	s := &x.s[k]
	var delay, deadline int64
	late := false
	v := r.Float64()
	switch {
	case v < x.d.OutOfOrder:
		delay = 1 + r.Int64N(x.window)
		deadline = c.e + x.window
	case v < x.d.OutOfOrder+x.d.Late:
		delay, late = x.lateBy, true
		deadline = c.e + 2*x.lateBy
	}
	if c.last || s.deadline(c.e) {
		delay = 0
	}
	repeat := x.d.Repeat > 0 && r.Float64() < x.d.Repeat
	if delay == 0 && row.Time == c.ns {
		s.anchor = true
	}
	if err := x.put(c, u, s, row, delay, deadline, late); err != nil {
		return err
	}
	if !repeat {
		return nil
	}
	if !x.d.RepeatChanges {
		return x.put(c, u, s, row, delay, deadline, late)
	}
	x.fl = append(x.fl[:0], row.Float...)
	x.il = append(x.il[:0], row.Int...)
	for i := range row.Float {
		row.Float[i]++
	}
	for i := range row.Int {
		row.Int[i]++
	}
	err := x.put(c, u, s, row, delay, deadline, late)
	copy(row.Float, x.fl)
	copy(row.Int, x.il)
	return err
}

// deadline reports whether a held row's deadline is epoch e.
func (s *heldSeries) deadline(e int64) bool {
	if s.head < len(s.late) && s.late[s.head].deadline <= e {
		return true
	}
	for i := range s.ooo {
		if s.ooo[i].deadline <= e {
			return true
		}
	}
	return false
}

// put encodes row into u, or holds it for delay epochs.
func (x *disorder) put(c *epochCtx, u *unit, s *heldSeries, row *format.Row, delay, deadline int64, late bool) error {
	if delay == 0 {
		return u.encode(c, row)
	}
	var b []byte
	if n := len(x.free); n > 0 {
		b, x.free = x.free[n-1], x.free[:n-1]
	}
	b, err := c.enc.AppendRow(b[:0], row)
	if err != nil {
		return err
	}
	x.seq++
	h := heldRow{due: c.e + delay, deadline: deadline, ns: row.Time, seq: x.seq, b: b}
	if late {
		if s.head > 0 && s.head == len(s.late) {
			s.late, s.head = s.late[:0], 0
		}
		s.late = append(s.late, h)
	} else {
		s.ooo = append(s.ooo, h)
	}
	return nil
}

// release writes the held rows due at this epoch of the series before k.
func (x *disorder) release(c *epochCtx, u *unit, k int) {
	for ; x.flushed < k; x.flushed++ {
		s := &x.s[x.flushed]
		anchored := s.anchor
		s.anchor = false
		if !anchored && !c.last && !s.deadline(c.e) {
			continue
		}
		x.due = x.due[:0]
		keep := s.ooo[:0]
		for _, r := range s.ooo {
			if r.due <= c.e || c.last {
				x.due = append(x.due, r)
			} else {
				keep = append(keep, r)
			}
		}
		clear(s.ooo[len(keep):])
		s.ooo = keep
		for ; s.head < len(s.late) && (s.late[s.head].due <= c.e || c.last); s.head++ {
			x.due = append(x.due, s.late[s.head])
			s.late[s.head] = heldRow{}
		}
		if s.head > len(s.late)/2 { // keep the queue's memory bounded
			n := copy(s.late, s.late[s.head:])
			clear(s.late[n:])
			s.late, s.head = s.late[:n], 0
		}
		slices.SortFunc(x.due, func(a, b heldRow) int {
			if c := cmp.Compare(b.ns, a.ns); c != 0 {
				return c // descending time
			}
			return cmp.Compare(a.seq, b.seq)
		})
		for _, r := range x.due {
			u.buf = append(u.buf, r.b...)
			u.ends = append(u.ends, int32(len(u.buf)))
			x.free = append(x.free, r.b)
		}
	}
}

// finish writes the held rows due at this epoch of the series not yet
// looked at, and starts the next epoch.
func (x *disorder) finish(c *epochCtx, u *unit) error {
	x.release(c, u, len(x.s))
	x.flushed = 0
	return nil
}
