package cnosdb

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/contenttest"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// contentILP is a table whose aggregates are worked out by hand in
// contentWant: two int64 maxima and a -5 (a 64-bit sum would wrap to -7),
// a uint64 maximum, a two-byte rune, a row without tags.
const contentILP = `m,host=a,r=x f=1.5,i=9223372036854775807i,s="héllo",b=true 1000000000
m,host=a,r=x f=2.25,i=9223372036854775807i,s="",b=false 2000000000
m,host=b i=-5i,u=18446744073709551615u 3000000000
m f=0.125,b=true 4000000000
`

var contentQuery = fingerprint.Query{Table: "m", Time: "time", Tags: []string{"host", "r"}, Fields: []fingerprint.FieldQuery{
	{Name: "b", Kind: fingerprint.Bool}, {Name: "f", Kind: fingerprint.Float}, {Name: "gone", Kind: fingerprint.Float},
	{Name: "i", Kind: fingerprint.Int}, {Name: "s", Kind: fingerprint.String}, {Name: "u", Kind: fingerprint.Uint},
}}

var contentWant = fingerprint.Table{Name: "m", Rows: 4, Series: 3, SeriesExact: true, MinTime: 1e9, MaxTime: 4e9, Fields: []fingerprint.Field{
	{Name: "b", Kind: fingerprint.Bool, Count: 3, True: 2},
	{Name: "f", Kind: fingerprint.Float, Count: 3, Sum: 3.875, AbsSum: 3.875, Extremes: true, Min: 0.125, Max: 2.25},
	{Name: "gone", Kind: fingerprint.Float},
	{Name: "i", Kind: fingerprint.Int, Count: 3, IntSum: fingerprint.Int128{Lo: math.MaxUint64 - 6},
		Extremes: true, IntMin: fingerprint.Int128FromInt64(-5), IntMax: fingerprint.Int128FromInt64(math.MaxInt64)},
	{Name: "s", Kind: fingerprint.String, Count: 2, Len: 6},
	{Name: "u", Kind: fingerprint.Uint, Count: 1, IntSum: fingerprint.Int128{Lo: math.MaxUint64},
		Extremes: true, IntMin: fingerprint.Int128{Lo: math.MaxUint64}, IntMax: fingerprint.Int128{Lo: math.MaxUint64}},
}}

func TestContent(t *testing.T) {
	wait := columnWait
	columnWait = 300 * time.Millisecond // the field "gone" is never written
	t.Cleanup(func() { columnWait = wait })
	tg := realTarget(t, nil)
	ctx := context.Background()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write(ctx, batch(contentILP, 1)); err != nil {
		t.Fatal(err)
	}
	missing := fingerprint.Query{Table: "never_written", Time: "time", Tags: []string{"host"}, Fields: []fingerprint.FieldQuery{{Name: "v", Kind: fingerprint.Float}}}
	got, err := tg.Content(ctx, []fingerprint.Query{contentQuery, missing})
	if err != nil {
		t.Fatal(err)
	}
	contenttest.Same(t, got["m"], contentWant)
	contenttest.Same(t, got["never_written"], fingerprint.Table{Name: "never_written", SeriesExact: true, Fields: []fingerprint.Field{{Name: "v", Kind: fingerprint.Float}}})

	// What the loader reads verifies against it.
	read := contenttest.ReadILP(t, contentILP)
	verify := func() string { return contenttest.Check(t, tg, read["m"], true, "host", "r") }
	if bad := verify(); bad != "" {
		t.Errorf("the load does not verify:\n%s", bad)
	}
	// A point rewritten with another value keeps the count; verification
	// names the field.
	if _, err := w.Write(ctx, batch("m,host=b i=-6i,u=18446744073709551615u 3000000000\n", 1)); err != nil {
		t.Fatal(err)
	}
	if bad := verify(); !strings.Contains(bad, `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`) ||
		!strings.Contains(bad, `table "m" field "i": min expected -5, found -6`) || strings.Contains(bad, "rows") {
		t.Errorf("after rewriting i=-5 as -6, verification says:\n%s", bad)
	}

	// Nanosecond times written with precision us: the count is right, the
	// times 1000 times too large.
	shifted, err := New(Config{Conn: httpwrite.Conn{URLs: tg.cfg.URLs, User: "root"}, Tenant: "cnosdb", Precision: "us", DBName: tg.cfg.DBName})
	if err != nil {
		t.Fatal(err)
	}
	defer shifted.Close()
	sw, err := shifted.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	const shiftedILP = "shifted,host=a v=1 1000000000\nshifted,host=a v=2 2000000000\n"
	if _, err := sw.Write(ctx, batch(shiftedILP, 1)); err != nil {
		t.Fatal(err)
	}
	sread := contenttest.ReadILP(t, shiftedILP)
	if bad := contenttest.Check(t, tg, sread["shifted"], true, "host"); !strings.Contains(bad, `table "shifted": min time expected 1970-01-01T00:00:01Z`) || strings.Contains(bad, "rows") {
		t.Errorf("nanoseconds written as microseconds, verification says:\n%s", bad)
	}
}

// TestContentTimeNamedOtherwise: a table loaded from a CSV whose time
// column is ts (the loader's query names it so) is answered from CnosDB's
// time column, named time (issue 43 item 11: min(ts) failed a correct load).
func TestContentTimeNamedOtherwise(t *testing.T) {
	tg := realTarget(t, nil)
	ctx := context.Background()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const lines = "meter,device=d1 kwh=1.5 1000000000\nmeter,device=d2 kwh=2.5 2000000000\n"
	if _, err := w.Write(ctx, batch(lines, 1)); err != nil {
		t.Fatal(err)
	}
	q := fingerprint.Query{Table: "meter", Time: "ts", Tags: []string{"device"}, Fields: []fingerprint.FieldQuery{{Name: "kwh", Kind: fingerprint.Float}}}
	got, err := tg.Content(ctx, []fingerprint.Query{q})
	if err != nil {
		t.Fatal(err)
	}
	contenttest.Same(t, got["meter"], fingerprint.Table{Name: "meter", Rows: 2, Series: 2, SeriesExact: true, MinTime: 1e9, MaxTime: 2e9,
		Fields: []fingerprint.Field{{Name: "kwh", Kind: fingerprint.Float, Count: 2, Sum: 4, AbsSum: 4, Extremes: true, Min: 1.5, Max: 2.5}}})
}
