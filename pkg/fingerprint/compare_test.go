package fingerprint

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// dbTable is what a database holding rows would answer: its own sums in
// its own order (shuffled, plain float64 summation), float4 columns
// rounded to 32 bits, timestamps truncated to unit.
func dbTable(t *testing.T, name string, rows []row, float4 bool, unit int64) *Table {
	t.Helper()
	r := rand.New(rand.NewPCG(9, 9))
	rows = append([]row(nil), rows...)
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	a := NewAcc(Options{})
	for _, w := range rows {
		if w.table != name {
			continue
		}
		a.Table([]byte(name)) // counts, series, ints, strings from an accumulator
		addRow(a, w)
	}
	got := a.Result()[name].Table
	// Float sums as a database adds them.
	for i := range got.Fields {
		f := &got.Fields[i]
		if f.Kind != Float {
			continue
		}
		var s float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, w := range rows {
			if v, ok := w.floats[f.Name]; ok && w.table == name {
				if float4 {
					v = float64(float32(v))
				}
				s += v
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		f.Sum, f.AbsSum, f.Float4 = s, 0, float4
		f.Min, f.Max = lo, hi
	}
	if unit > 1 {
		got.MinTime -= got.MinTime % unit
		got.MaxTime -= got.MaxTime % unit
		got.TimeUnit = unit
	}
	return &got
}

func readOf(rows []row) map[string]*Read {
	a := NewAcc(Options{})
	for _, w := range rows {
		addRow(a, w)
	}
	return a.Result()
}

func TestCompareCorrectLoadPasses(t *testing.T) {
	rows := genRows(rand.New(rand.NewPCG(5, 6)), 20000, 30)
	read := readOf(rows)
	for _, float4 := range []bool{false, true} {
		for _, unit := range []int64{1, 1000} {
			found := dbTable(t, "t1", rows, float4, unit)
			if r := Compare(ExpectRead(read["t1"], false), found); !r.OK() {
				t.Fatalf("float4=%v unit=%d: %v", float4, unit, r.Mismatches)
			}
		}
	}
}

func TestCompareFindsDamage(t *testing.T) {
	rows := genRows(rand.New(rand.NewPCG(7, 8)), 20000, 30)
	exp := ExpectRead(readOf(rows)["t2"], false)
	cases := []struct {
		name   string
		damage func(f *Table)
		want   string // in the mismatch
	}{
		{"value changed", func(f *Table) { f.Fields[fieldIndex(f, "f")].Sum += 1 }, `field "f": sum expected`},
		{"integer changed", func(f *Table) { i := fieldIndex(f, "i"); f.Fields[i].IntSum = f.Fields[i].IntSum.AddInt64(1) }, `field "i": sum`},
		{"NULL written as 0", func(f *Table) { f.Fields[fieldIndex(f, "g")].Count++ }, `field "g": count expected`},
		{"string changed", func(f *Table) { f.Fields[fieldIndex(f, "s")].Len-- }, `field "s": length`},
		{"bool flipped", func(f *Table) { f.Fields[fieldIndex(f, "b")].True++ }, `field "b": true values`},
		{"time shifted", func(f *Table) { f.MinTime *= 1000; f.MaxTime *= 1000 }, "min time expected"},
		{"series merged", func(f *Table) { f.Series-- }, "series expected"},
		{"row lost", func(f *Table) { f.Rows-- }, "rows expected"},
		{"field dropped", func(f *Table) { f.Fields = f.Fields[1:] }, "missing"},
	}
	for _, c := range cases {
		found := dbTable(t, "t2", rows, false, 1)
		if found.MinTime == 0 {
			t.Fatal("a shift of time 0 would not show")
		}
		c.damage(found)
		r := Compare(exp, found)
		if r.OK() {
			t.Fatalf("%s: passed", c.name)
		}
		if s := r.Mismatches[0].String(); !strings.Contains(s, c.want) || !strings.Contains(s, `table "t2"`) {
			t.Fatalf("%s: %q does not say %q", c.name, s, c.want)
		}
	}
}

func fieldIndex(t *Table, name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	panic(name)
}

// TestFloat4ToleranceBound: values stored in 32 bits pass, whatever the
// magnitudes, and a change of one value by more than the bound fails.
func TestFloat4ToleranceBound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(5000)
		scale := math.Pow(10, float64(r.IntN(12)-6))
		a := NewAcc(Options{})
		tb := a.Table([]byte("w"))
		var db float64
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = r.NormFloat64() * scale
			tb.Row(1, 1)
			tb.Field([]byte("x"), Float).Float(vals[i])
		}
		r.Shuffle(n, func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		for _, v := range vals {
			db += float64(float32(v))
		}
		exp := ExpectRead(a.Result()["w"], false)
		found := &Table{Name: "w", Rows: int64(n), Series: 1, SeriesExact: true, MinTime: 1, MaxTime: 1,
			Fields: []Field{{Name: "x", Kind: Float, Count: int64(n), Sum: db, Float4: true}}}
		if res := Compare(exp, found); !res.OK() {
			t.Fatalf("float4 n=%d scale=%g: %v", n, scale, res.Mismatches)
		}
		tol := FloatTolerance(int64(n), exp.Fields[0].AbsSum, exp.Fields[0].Sum, true)
		found.Fields[0].Sum += 2.5 * tol
		if res := Compare(exp, found); res.OK() {
			t.Fatalf("float4 n=%d: a change of %g passed", n, 2.5*tol)
		}
	}
}

func TestCombineBeforePlusRun(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	rows := genRows(r, 6000, 20)
	before, run := rows[:2500], rows[2500:]
	beforeDB := dbTable(t, "t0", before, false, 1)
	afterDB := dbTable(t, "t0", rows, false, 1)
	exp := Combine(beforeDB, ExpectRead(readOf(run)["t0"], false), false)
	if res := Compare(exp, afterDB); !res.OK() {
		t.Fatal(res.Mismatches)
	}
	if exp.SeriesLow != beforeDB.Series || exp.SeriesHigh <= exp.SeriesLow {
		t.Fatalf("series bounds %d..%d", exp.SeriesLow, exp.SeriesHigh)
	}
	lost := *afterDB
	lost.Rows--
	if Compare(exp, &lost).OK() {
		t.Fatal("a lost row passed")
	}
	// Overwriting: loading the same rows again leaves the table as it was,
	// which is proven for rows, time and series but not field sums.
	again := Combine(afterDB, ExpectRead(readOf(rows)["t0"], true), true)
	if res := Compare(again, afterDB); !res.OK() || len(res.Notes) == 0 {
		t.Fatalf("reload on an overwriting database: %v %v", res.Mismatches, res.Notes)
	}
	if res := Compare(Combine(afterDB, ExpectRead(readOf(rows)["t0"], false), false), afterDB); res.OK() {
		t.Fatal("an appending database that kept nothing of the second load passed")
	}
}
