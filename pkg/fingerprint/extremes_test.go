package fingerprint

import (
	"math"
	"strings"
	"testing"
)

// readFields accumulates one row per value of one field each: ints for
// "i", uints for "u", floats for "f", decimals (mantissa, digits after
// the point, negative) for "d".
func readFields(ints []int64, uints []uint64, floats []float64) map[string]Field {
	a := NewAcc(Options{})
	tb := a.Table([]byte("t"))
	for i, v := range ints {
		tb.Row(1, int64(i))
		tb.Field([]byte("i"), Int).Int(v)
	}
	for i, v := range uints {
		tb.Row(1, int64(i))
		tb.Field([]byte("u"), Uint).Uint(v)
	}
	for i, v := range floats {
		tb.Row(1, int64(i))
		tb.Field([]byte("f"), Float).Float(v)
	}
	m := map[string]Field{}
	for _, f := range a.Result()["t"].Fields {
		m[f.Name] = f
	}
	return m
}

func TestAccExtremes(t *testing.T) {
	sub := math.SmallestNonzeroFloat64
	m := readFields(
		[]int64{5, math.MaxInt64, -7, math.MinInt64, 0},
		[]uint64{3, math.MaxUint64, 1},
		[]float64{2.5, math.Copysign(0, -1), -sub, sub, math.Inf(1), -1e-310},
	)
	i, u, f := m["i"], m["u"], m["f"]
	if !i.Extremes || i.IntMin != Int128FromInt64(math.MinInt64) || i.IntMax != Int128FromInt64(math.MaxInt64) {
		t.Errorf("int: %+v", i)
	}
	if !u.Extremes || u.IntMin != Int128FromUint64(1) || u.IntMax != Int128FromUint64(math.MaxUint64) {
		t.Errorf("uint: %+v", u)
	}
	if !f.Extremes || f.Min != -1e-310 || !math.IsInf(f.Max, 1) {
		t.Errorf("float: %+v", f)
	}
	// Only -0 and subnormals; only -Inf.
	if f := readFields(nil, nil, []float64{math.Copysign(0, -1), sub})["f"]; !f.Extremes || f.Min != 0 || f.Max != sub {
		t.Errorf("-0, subnormal: %+v", f)
	}
	if f := readFields(nil, nil, []float64{math.Inf(-1)})["f"]; !f.Extremes || !math.IsInf(f.Min, -1) || !math.IsInf(f.Max, -1) {
		t.Errorf("-Inf: %+v", f)
	}
	if f := readFields(nil, nil, []float64{1, math.NaN()})["f"]; f.Extremes {
		t.Errorf("NaN: extremes %+v, want unknown", f)
	}

	// Decimals: each extreme rounded once, as a database parses the text;
	// merged with plain floats of the same field.
	a := NewAcc(Options{})
	tb := a.Table([]byte("t"))
	tb.Row(1, 1)
	tb.Field([]byte("d"), Float).Decimal(9007199254740993, 0, false) // rounds to ...992
	tb.Row(1, 2)
	tb.Field([]byte("d"), Float).Decimal(1, 1, true) // -0.1
	b := NewAcc(Options{})
	b.Table([]byte("t")).Row(1, 3)
	b.Table([]byte("t")).Field([]byte("d"), Float).Float(-0.25)
	a.Merge(b)
	d := a.Result()["t"].Fields[0]
	if !d.Extremes || d.Min != -0.25 || d.Max != 9007199254740992 {
		t.Errorf("decimal: %+v", d)
	}
	c := NewAcc(Options{})
	c.Table([]byte("t")).Row(1, 1)
	c.Table([]byte("t")).Field([]byte("d"), Float).Decimal(0, 3, true) // only -0.000
	if d := c.Result()["t"].Fields[0]; !d.Extremes || d.Min != 0 || d.Max != 0 {
		t.Errorf("decimal zero: %+v", d)
	}
}

// table is a one-field table holding f.
func table(f Field) *Table {
	return &Table{Name: "t", Rows: f.Count, Series: 1, SeriesExact: true, MinTime: 0, MaxTime: f.Count - 1, Fields: []Field{f}}
}

func compareOne(read, found Field) Result {
	exp := &Expect{Table: *table(read), RowsLow: read.Count}
	return Compare(exp, table(found))
}

func wantMismatch(t *testing.T, r Result, what string) {
	t.Helper()
	for _, m := range r.Mismatches {
		if m.What == what {
			return
		}
	}
	t.Errorf("no %s mismatch: %v", what, r.Mismatches)
}

func TestCompareCompensatingChange(t *testing.T) {
	// One value +1, another -1: count and sum as loaded.
	read := readFields([]int64{10, 20, 30}, nil, []float64{1.5, 2.5, 3.5})
	changed := readFields([]int64{9, 20, 31}, nil, []float64{0.5, 2.5, 4.5})
	for _, n := range []string{"i", "f"} {
		if read[n].Sum != changed[n].Sum || read[n].IntSum != changed[n].IntSum {
			t.Fatalf("%s: the change is not compensating", n)
		}
		r := compareOne(read[n], changed[n])
		wantMismatch(t, r, "min")
		wantMismatch(t, r, "max")
		if got := compareOne(read[n], read[n]); !got.OK() || len(got.Notes) != 0 {
			t.Errorf("%s: unchanged: %v %v", n, got.Mismatches, got.Notes)
		}
		// A database that does not give the extremes: a note, no failure.
		no := changed[n]
		no.Extremes = false
		if got := compareOne(read[n], no); !got.OK() || len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "min and max") {
			t.Errorf("%s: no extremes: %v %v", n, got.Mismatches, got.Notes)
		}
	}
}

func TestCompareIntegerInFloat(t *testing.T) {
	// 9007199254740993 and ...1003 stored as float64 round down and up:
	// the sum stays, the extremes do not.
	read := readFields([]int64{9007199254740993, 9007199254741003}, nil, nil)["i"]
	found := Field{Name: "i", Kind: Float, Count: 2, Sum: 9007199254740992 + 9007199254741004,
		Extremes: true, Min: 9007199254740992, Max: 9007199254741004}
	r := compareOne(read, found)
	if len(r.Mismatches) != 2 {
		t.Fatalf("%v", r.Mismatches)
	}
	wantMismatch(t, r, "min")
	if s := r.Mismatches[0].String(); !strings.Contains(s, "9007199254740993") || !strings.Contains(s, "9007199254740992") {
		t.Errorf("%s", s)
	}
	// Integers a float64 holds exactly match.
	ok := readFields([]int64{-9007199254740992, 4}, nil, nil)["i"]
	found = Field{Name: "i", Kind: Float, Count: 2, Sum: -9007199254740988, Extremes: true, Min: -9007199254740992, Max: 4}
	if r := compareOne(ok, found); !r.OK() {
		t.Errorf("exact integers in a float: %v", r.Mismatches)
	}
	// The largest uint64 is not 2^64; a fraction is no integer.
	u := readFields(nil, []uint64{math.MaxUint64}, nil)["u"]
	found = Field{Name: "u", Kind: Float, Count: 1, Sum: 0x1p64, Extremes: true, Min: 0x1p64, Max: 0x1p64}
	wantMismatch(t, compareOne(u, found), "max")
	found = Field{Name: "i", Kind: Float, Count: 2, Sum: -9007199254740988, Extremes: true, Min: -9007199254740992, Max: 4.5}
	wantMismatch(t, compareOne(ok, found), "max")
	// An integer column holding a float field's integral values.
	f := readFields(nil, nil, []float64{-3, 8})["f"]
	found = Field{Name: "f", Kind: Int, Count: 2, IntSum: Int128FromInt64(5), Extremes: true, IntMin: Int128FromInt64(-3), IntMax: Int128FromInt64(8)}
	if r := compareOne(f, found); !r.OK() {
		t.Errorf("floats in an integer column: %v", r.Mismatches)
	}
}

func TestCompareFloatExtremes(t *testing.T) {
	read := readFields(nil, nil, []float64{0.1, math.Copysign(0, -1), 1e-300, 3.3})["f"]
	found := read
	found.Min = 0 // +0 for -0
	if r := compareOne(read, found); !r.OK() {
		t.Errorf("-0 and +0: %v", r.Mismatches)
	}
	found.Max = math.Nextafter(3.3, 4)
	wantMismatch(t, compareOne(read, found), "max")

	// float4: the read value rounded to 32 bits, one float32 ulp allowed.
	read = readFields(nil, nil, []float64{0.1, 3.3})["f"]
	f4 := read
	f4.Float4, f4.Min, f4.Max = true, float64(float32(0.1)), float64(float32(3.3))
	f4.Sum = f4.Min + f4.Max
	if r := compareOne(read, f4); !r.OK() {
		t.Errorf("float4: %v", r.Mismatches)
	}
	f4.Max = float64(math.Nextafter32(float32(3.3), 4))
	if r := compareOne(read, f4); !r.OK() {
		t.Errorf("float4, one ulp: %v", r.Mismatches)
	}
	f4.Max = float64(math.Nextafter32(math.Nextafter32(float32(3.3), 4), 4))
	wantMismatch(t, compareOne(read, f4), "max")

	// Printed with 15 digits: 2^-49 relative.
	p := read
	p.Printed, p.Max = true, 3.30000000000000
	p.Max = math.Nextafter(math.Nextafter(3.3, 4), 4)
	if r := compareOne(read, p); !r.OK() {
		t.Errorf("printed: %v", r.Mismatches)
	}
	p.Max = 3.3 * (1 + 0x1p-46)
	wantMismatch(t, compareOne(read, p), "max")
}

func TestCombineExtremes(t *testing.T) {
	before := table(Field{Name: "i", Kind: Int, Count: 2, IntSum: Int128FromInt64(-2), Extremes: true, IntMin: Int128FromInt64(-5), IntMax: Int128FromInt64(3)})
	run := readFields([]int64{0, 10}, nil, nil)["i"]
	exp := Combine(before, &Expect{Table: *table(run), RowsLow: 2}, false)
	f := exp.Fields[0]
	if !f.Extremes || f.IntMin != Int128FromInt64(-5) || f.IntMax != Int128FromInt64(10) {
		t.Fatalf("combined: %+v", f)
	}
	after := table(Field{Name: "i", Kind: Int, Count: 4, IntSum: Int128FromInt64(8), Extremes: true, IntMin: Int128FromInt64(-5), IntMax: Int128FromInt64(10)})
	after.Rows, after.MinTime, after.MaxTime = 4, 0, 1
	if r := Compare(exp, after); !r.OK() || len(r.Notes) != 0 {
		t.Fatalf("after: %v %v", r.Mismatches, r.Notes)
	}
	// +1 and -1 on the before rows' extremes: caught.
	after.Fields[0].IntMin, after.Fields[0].IntMax = Int128FromInt64(-4), Int128FromInt64(9)
	after.Fields[0].IntSum = Int128FromInt64(10)
	r := Compare(exp, after)
	wantMismatch(t, r, "min")

	// A before without extremes leaves them unknown: noted.
	before.Fields[0].Extremes = false
	exp = Combine(before, &Expect{Table: *table(run), RowsLow: 2}, false)
	if exp.Fields[0].Extremes {
		t.Fatalf("extremes from an unknown before: %+v", exp.Fields[0])
	}
	after.Fields[0].IntSum = Int128FromInt64(8)
	if r := Compare(exp, after); !r.OK() || len(r.Notes) != 1 {
		t.Fatalf("unknown before: %v %v", r.Mismatches, r.Notes)
	}
	// A field the run has no values of: before's extremes.
	run = Field{Name: "i", Kind: Int}
	exp = Combine(table(Field{Name: "i", Kind: Int, Count: 1, Extremes: true, IntMin: Int128FromInt64(7), IntMax: Int128FromInt64(7)}), &Expect{Table: Table{Name: "t", Rows: 1, Series: 1, SeriesExact: true, Fields: []Field{run}}, RowsLow: 1}, false)
	if f := exp.Fields[0]; !f.Extremes || f.IntMin != Int128FromInt64(7) || f.IntMax != Int128FromInt64(7) {
		t.Fatalf("before only: %+v", f)
	}
	// Stored as floats before: the run's integers become floats.
	fb := table(Field{Name: "i", Kind: Float, Count: 1, Sum: 2.5, AbsSum: 2.5, Extremes: true, Min: 2.5, Max: 2.5})
	exp = Combine(fb, &Expect{Table: *table(readFields([]int64{9007199254740993}, nil, nil)["i"]), RowsLow: 1}, false)
	if f := exp.Fields[0]; f.Kind != Float || !f.Extremes || f.Min != 2.5 || f.Max != 9007199254740992 {
		t.Fatalf("before as floats: %+v", f)
	}
}
