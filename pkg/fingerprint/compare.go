package fingerprint

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Expect is what verification expects a table to hold: a fingerprint and
// the slack that what was loaded cannot pin down.
type Expect struct {
	Table
	// RowsLow is the fewest rows the table may hold (equal to Rows unless
	// an overwriting database may have stored some rows as one point: the
	// input repeats (series, time) keys, or appended rows may land on
	// points the table held).
	RowsLow int64
	// SeriesLow and SeriesHigh bound the series count when it is not one
	// number (appending: the series before and the series loaded may
	// overlap, so after the load there are between the larger of the two
	// and their sum). Both zero: Series applies.
	SeriesLow, SeriesHigh int64
	// TimeUnproven says why the time range is not compared (rows without
	// a timestamp, stamped by the server); empty when it is.
	TimeUnproven string
	// FieldsUnproven says why field counts and sums are not compared
	// (which of two rows with the same key an overwriting database keeps
	// is not known); empty when they are.
	FieldsUnproven string
}

// ExpectRead is the expectation for a table freshly loaded with what r
// holds. On an overwriting database (overwrites) repeated keys lower the
// row count to the number of distinct keys and leave field aggregates
// unproven; when keys were not tracked, or too many to remember, the rows
// are only bounded below by one a series, and the fields unproven.
func ExpectRead(r *Read, overwrites bool) *Expect {
	e := &Expect{Table: r.Table, RowsLow: r.Rows}
	e.Fields = append([]Field(nil), r.Fields...)
	if r.NoTime > 0 {
		e.TimeUnproven = fmt.Sprintf("%d rows without a timestamp (the server stamps them)", r.NoTime)
	}
	if !overwrites {
		return e
	}
	switch {
	case !r.KeysTracked || !r.KeysExact:
		// A (series, time) key may repeat without our knowing: the
		// database may hold as few rows as there are series.
		e.RowsLow = min(r.Rows, max(r.Series, 1))
		if r.Rows == 0 {
			e.RowsLow = 0
		}
		e.FieldsUnproven = "the input has too many (series, time) keys to rule out repeats, which an overwriting database stores as one point"
	case r.Repeats > 0:
		e.RowsLow = r.Rows - r.Repeats
		e.FieldsUnproven = fmt.Sprintf("the input repeats %d (series, time) keys, which an overwriting database stores as one point (which row's values it keeps is not known)", r.Repeats)
	}
	return e
}

// Mismatch is one aggregate the database holds differently from what was
// loaded.
type Mismatch struct {
	Table string
	// Field is empty for a table's own aggregates (rows, series, time).
	Field string
	// What is the aggregate: "rows", "series", "min time", "max time",
	// "count", "sum", "min", "max", "length", "true values", "kind",
	// "missing".
	What            string
	Expected, Found string
	// Tolerance is the difference allowed, when there is one.
	Tolerance string
}

func (m Mismatch) String() string {
	where := "table " + strconv.Quote(m.Table)
	if m.Field != "" {
		where += " field " + strconv.Quote(m.Field)
	}
	s := fmt.Sprintf("%s: %s expected %s, found %s", where, m.What, m.Expected, m.Found)
	if m.Tolerance != "" {
		s += " (tolerance " + m.Tolerance + ")"
	}
	return s
}

// Result is the outcome of one table's comparison: what differs, and what
// could not be checked and why.
type Result struct {
	Mismatches []Mismatch
	Notes      []string
}

// OK reports whether nothing differs.
func (r Result) OK() bool { return len(r.Mismatches) == 0 }

const ulp = 0x1p-53 // unit roundoff of float64

// FloatTolerance is the difference Compare allows between a float sum
// read by the loader and one found in the database, for n values of total
// magnitude abs whose sum is about sum:
//
//	(2n+4)·2⁻⁵³·abs + 2⁻⁴⁹·|sum|            (float8)
//	(2n+4)·2⁻⁵³·abs + 2⁻⁴⁹·|sum| + 2⁻²⁴·abs (float4)
//
// The first term bounds any order of floating-point summation of n terms
// (the database's, whatever order it adds in, and when appending the sum
// found before the load too: hence 2n), the second a sum printed with 15
// significant digits, the third a column stored in 32 bits (each value
// rounded by at most 2⁻²⁴ of itself, even when the database rounds the
// decimal text to float32 directly rather than through float64). Targets
// must sum float4 columns in double precision: a float32 accumulator's
// error (n·2⁻²⁴·abs) would hide any change.
func FloatTolerance(n int64, abs, sum float64, float4 bool) float64 {
	t := float64(2*n+4)*ulp*abs + 0x1p-49*math.Abs(sum)
	if float4 {
		t += 0x1p-24 * abs
	}
	return t
}

// Compare checks found, what the database holds, against exp. Field
// aggregates the database could not compute (Count -1, Len -1) are noted,
// not failed.
func Compare(exp *Expect, found *Table) Result {
	var r Result
	name := exp.Name
	bad := func(field, what, e, f, tol string) {
		r.Mismatches = append(r.Mismatches, Mismatch{Table: name, Field: field, What: what, Expected: e, Found: f, Tolerance: tol})
	}
	if found == nil {
		found = &Table{Name: name}
	}
	low := exp.RowsLow
	if low > exp.Rows || low < 0 {
		low = exp.Rows
	}
	if found.Rows < low || found.Rows > exp.Rows {
		want := strconv.FormatInt(exp.Rows, 10)
		if low < exp.Rows {
			want = fmt.Sprintf("%d to %d", low, exp.Rows)
		}
		bad("", "rows", want, strconv.FormatInt(found.Rows, 10), "")
	}
	if exp.Rows == 0 || found.Rows == 0 {
		return r
	}
	unit := max(found.TimeUnit, 1)
	if exp.TimeUnproven != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("table %q: time range not compared: %s", name, exp.TimeUnproven))
	} else if d := found.MinTime - exp.MinTime; d <= -unit || d >= unit {
		bad("", "min time", fmtTime(exp.MinTime), fmtTime(found.MinTime), unitTol(unit))
	}
	if d := found.MaxTime - exp.MaxTime; d <= -unit || d >= unit {
		if exp.TimeUnproven == "" {
			bad("", "max time", fmtTime(exp.MaxTime), fmtTime(found.MaxTime), unitTol(unit))
		}
	}
	compareSeries(exp, found, &r, bad)

	if exp.FieldsUnproven != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("table %q: field counts and sums not compared: %s", name, exp.FieldsUnproven))
		return r
	}
	var noExt, unknownExt []string // fields whose extremes are not compared
	byName := make(map[string]*Field, len(found.Fields))
	for i := range found.Fields {
		byName[found.Fields[i].Name] = &found.Fields[i]
	}
	for i := range exp.Fields {
		e := &exp.Fields[i]
		f := byName[e.Name]
		if e.Count < 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("table %q field %q: not compared (values of more than one kind in the input, or its aggregate before the load unknown)", name, e.Name))
			continue
		}
		if f == nil {
			if e.Count > 0 {
				bad(e.Name, "missing", fmt.Sprintf("%d values", e.Count), "no such field", "")
			}
			continue
		}
		if f.Count < 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("table %q field %q: the database cannot aggregate its %s values, not compared", name, e.Name, e.Kind))
			continue
		}
		if f.Count != e.Count {
			bad(e.Name, "count", strconv.FormatInt(e.Count, 10), strconv.FormatInt(f.Count, 10), "")
			continue
		}
		compareField(e, f, &r, bad)
		if numeric(e.Kind) && numeric(f.Kind) && e.Count > 0 {
			switch {
			case !e.Extremes:
				unknownExt = append(unknownExt, strconv.Quote(e.Name))
			case !f.Extremes:
				noExt = append(noExt, strconv.Quote(e.Name))
			default:
				compareExtremes(e, f, bad)
			}
		}
	}
	if len(noExt) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("table %q: min and max of %s not compared: the database does not give them", name, strings.Join(noExt, ", ")))
	}
	if len(unknownExt) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("table %q: min and max of %s not compared: the input holds NaN, or they were not known before the load", name, strings.Join(unknownExt, ", ")))
	}
	return r
}

func numeric(k Kind) bool { return k == Float || k == Int || k == Uint }

// compareExtremes checks a numeric field's min and max. Integers are
// compared exactly, also against a float the database stores them in
// (9007199254740993 stored as 9007199254740992 differs: a float64 cannot
// hold it). Floats are compared exactly (-0 equals +0), except in a
// float4 column, where the read value is rounded to float32 and one
// float32 unit in the last place is allowed (a database may round the
// decimal text to 32 bits directly, not through float64), and a value the
// database printed with fewer digits than a float64 needs (Field.Printed),
// where 2⁻⁴⁹ of it is allowed, as FloatTolerance allows a printed sum.
func compareExtremes(e, f *Field, bad func(field, what, e, f, tol string)) {
	for _, m := range [2]struct {
		what      string
		want, got float64
		wi, gi    Int128
	}{{"min", e.Min, f.Min, e.IntMin, f.IntMin}, {"max", e.Max, f.Max, e.IntMax, f.IntMax}} {
		switch {
		case e.Kind != Float && f.Kind != Float:
			if m.wi.Cmp(m.gi) != 0 {
				bad(e.Name, m.what, m.wi.String(), m.gi.String(), "")
			}
		case e.Kind != Float || f.Kind != Float:
			// One side an integer, the other a float: compared exactly.
			w, g := exact(e, m.want, m.wi), exact(f, m.got, m.gi)
			if w == nil || g == nil || w.Cmp(g) != 0 {
				bad(e.Name, m.what, extremeString(e, m.want, m.wi), extremeString(f, m.got, m.gi), "")
			}
		case f.Float4:
			w := float64(float32(m.want))
			tol := 0.0
			if a := float32(math.Abs(w)); !math.IsInf(w, 0) {
				tol = float64(math.Nextafter32(a, float32(math.Inf(1))) - a)
			}
			if !(math.Abs(m.got-w) <= tol) && m.got != w {
				bad(e.Name, m.what, fmtFloat(w), fmtFloat(m.got), fmtFloat(tol)+": float4")
			}
		case f.Printed:
			tol := 0x1p-49 * math.Abs(m.want)
			if !(math.Abs(m.got-m.want) <= tol) && m.got != m.want {
				bad(e.Name, m.what, fmtFloat(m.want), fmtFloat(m.got), fmtFloat(tol))
			}
		default:
			if m.got != m.want {
				bad(e.Name, m.what, fmtFloat(m.want), fmtFloat(m.got), "")
			}
		}
	}
}

// exact is a field's extreme as an exact number: v for a Float field, i
// for an integer one (nil for NaN).
func exact(f *Field, v float64, i Int128) *big.Float {
	if f.Kind != Float {
		return new(big.Float).SetInt(i.Big())
	}
	if v != v {
		return nil
	}
	return new(big.Float).SetFloat64(v)
}

func extremeString(f *Field, v float64, i Int128) string {
	if f.Kind != Float {
		return i.String()
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64) // an integer, in full
	}
	return fmtFloat(v)
}

func compareSeries(exp *Expect, found *Table, r *Result, bad func(field, what, e, f, tol string)) {
	lo, hi := exp.Series, exp.Series
	if exp.SeriesLow != 0 || exp.SeriesHigh != 0 {
		lo, hi = exp.SeriesLow, exp.SeriesHigh
	}
	tol := ""
	if !exp.SeriesExact || !found.SeriesExact {
		// An estimate on either side: allow the estimator's error.
		lo = int64(math.Floor(float64(lo) * (1 - SeriesError)))
		hi = int64(math.Ceil(float64(hi) * (1 + SeriesError)))
		tol = fmt.Sprintf("%.1f%%: an estimate", 100*SeriesError)
		r.Notes = append(r.Notes, fmt.Sprintf("table %q: series compared within %.1f%% (a count beyond the exact limit is estimated)", exp.Name, 100*SeriesError))
	}
	if found.Series < lo || found.Series > hi {
		want := strconv.FormatInt(exp.Series, 10)
		if exp.SeriesLow != 0 || exp.SeriesHigh != 0 {
			want = fmt.Sprintf("%d to %d", exp.SeriesLow, exp.SeriesHigh)
		}
		bad("", "series", want, strconv.FormatInt(found.Series, 10), tol)
	}
}

func compareField(e, f *Field, r *Result, bad func(field, what, e, f, tol string)) {
	switch e.Kind {
	case Float, Int, Uint:
		if f.Kind != Float && f.Kind != Int && f.Kind != Uint {
			bad(e.Name, "kind", e.Kind.String(), f.Kind.String(), "")
			return
		}
		if e.Kind != Float && f.Kind != Float {
			if e.IntSum.Cmp(f.IntSum) != 0 {
				bad(e.Name, "sum", e.IntSum.String(), f.IntSum.String(), "")
			}
			return
		}
		want, got := e.Sum, f.Sum
		if e.Kind != Float {
			want = e.IntSum.Float64()
		}
		if f.Kind != Float {
			got = f.IntSum.Float64()
		}
		if math.IsNaN(want) || math.IsInf(want, 0) {
			r.Notes = append(r.Notes, fmt.Sprintf("field %q: the input holds NaN or infinite values, sum not compared", e.Name))
			return
		}
		tol := FloatTolerance(e.Count, math.Max(e.AbsSum, math.Abs(want)), want, f.Float4)
		if !(math.Abs(got-want) <= tol) {
			bad(e.Name, "sum", fmtFloat(want), fmtFloat(got), fmtFloat(tol))
		}
	case String:
		if f.Len < 0 || e.Len < 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("field %q: the database cannot sum string lengths, only the count compared", e.Name))
			return
		}
		if f.Len != e.Len {
			bad(e.Name, "length", strconv.FormatInt(e.Len, 10)+" bytes", strconv.FormatInt(f.Len, 10)+" bytes", "")
		}
	case Bool:
		if f.True != e.True {
			bad(e.Name, "true values", strconv.FormatInt(e.True, 10), strconv.FormatInt(f.True, 10), "")
		}
	}
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func fmtTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) + " (" + strconv.FormatInt(ns, 10) + ")"
}

func unitTol(unit int64) string {
	if unit <= 1 {
		return ""
	}
	return "under " + time.Duration(unit).String()
}

// SortMismatches orders mismatches by table, then field.
func SortMismatches(m []Mismatch) {
	sort.SliceStable(m, func(i, j int) bool {
		if m[i].Table != m[j].Table {
			return m[i].Table < m[j].Table
		}
		return m[i].Field < m[j].Field
	})
}
