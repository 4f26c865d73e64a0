package timescale

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

func ilpBatch(data string) *load.Batch {
	n := 0
	for _, c := range data {
		if c == '\n' {
			n++
		}
	}
	return &load.Batch{Format: format.ILP, Data: []byte(data), Rows: n, Source: "t.ilp", FirstLine: 1, FirstRecord: 1, Seq: 1}
}

// The aggregates of these lines are worked out by hand below: two int64
// maxima and a -5 (a 64-bit sum would wrap), a two-byte rune, a row
// without tags (NULL tags are a series of their own), nanoseconds that
// PostgreSQL's microseconds floor.
const contentILP = `m,host=a,r=x f=1.5,i=9223372036854775807i,s="héllo",b=true 1000000999
m,host=a,r=x f=2.25,i=9223372036854775807i,s="",b=false 2000000000
m,host=b i=-5i,u=7u 3000000000
m f=0.125,b=true 4000001500
weather,location_id=3 temperature_2m=0.1 1000000000
weather,location_id=4 temperature_2m=-2.7,snowfall=0.001 2000000000
weather,location_id=4 temperature_2m=35.05 3000000000
`

var contentQuery = fingerprint.Query{Table: "m", Time: "time", Tags: []string{"host", "r"}, Fields: []fingerprint.FieldQuery{
	{Name: "b", Kind: fingerprint.Bool}, {Name: "f", Kind: fingerprint.Float}, {Name: "gone", Kind: fingerprint.Float},
	{Name: "i", Kind: fingerprint.Int}, {Name: "s", Kind: fingerprint.String}, {Name: "u", Kind: fingerprint.Uint},
}}

var contentWant = fingerprint.Table{Name: "m", Rows: 4, Series: 3, SeriesExact: true, TimeUnit: 1000, MinTime: 1e9, MaxTime: 4000001000, Fields: []fingerprint.Field{
	{Name: "b", Kind: fingerprint.Bool, Count: 3, True: 2},
	{Name: "f", Kind: fingerprint.Float, Count: 3, Sum: 3.875, AbsSum: 3.875, Extremes: true, Min: 0.125, Max: 2.25},
	{Name: "gone", Kind: fingerprint.Float},
	{Name: "i", Kind: fingerprint.Int, Count: 3, IntSum: fingerprint.Int128{Lo: math.MaxUint64 - 6},
		Extremes: true, IntMin: fingerprint.Int128FromInt64(-5), IntMax: fingerprint.Int128FromInt64(math.MaxInt64)},
	{Name: "s", Kind: fingerprint.String, Count: 2, Len: 6},
	{Name: "u", Kind: fingerprint.Uint, Count: 1, IntSum: fingerprint.Int128{Lo: 7}, Extremes: true, IntMin: fingerprint.Int128{Lo: 7}, IntMax: fingerprint.Int128{Lo: 7}},
}}

func f32(v float64) float64 { return float64(float32(v)) }

func TestContent(t *testing.T) {
	tg := newTestTarget(t, Config{}, usecase.LookupTable(usecase.Weather))
	ctx := context.Background()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	writeAll(t, w, []*load.Batch{ilpBatch(contentILP)})

	weather := fingerprint.Query{Table: "weather", Time: "time", Tags: []string{"location_id"}, Fields: []fingerprint.FieldQuery{
		{Name: "snowfall", Kind: fingerprint.Float}, {Name: "temperature_2m", Kind: fingerprint.Float}}}
	missing := fingerprint.Query{Table: "never_written", Time: "time", Tags: []string{"host"}, Fields: []fingerprint.FieldQuery{{Name: "v", Kind: fingerprint.Float}}}
	got, err := tg.Content(ctx, []fingerprint.Query{contentQuery, weather, missing})
	if err != nil {
		t.Fatal(err)
	}
	contenttest.Same(t, got["m"], contentWant)
	// The float4 columns' sums are of the stored (rounded) values.
	contenttest.Same(t, got["weather"], fingerprint.Table{Name: "weather", Rows: 3, Series: 2, SeriesExact: true, TimeUnit: 1000, MinTime: 1e9, MaxTime: 3e9, Fields: []fingerprint.Field{
		{Name: "snowfall", Kind: fingerprint.Float, Float4: true, Count: 1, Sum: f32(0.001), AbsSum: f32(0.001), Extremes: true, Min: f32(0.001), Max: f32(0.001)},
		{Name: "temperature_2m", Kind: fingerprint.Float, Float4: true, Count: 3, Sum: f32(0.1) + f32(-2.7) + f32(35.05), AbsSum: f32(0.1) + f32(2.7) + f32(35.05),
			Extremes: true, Min: f32(-2.7), Max: f32(35.05)},
	}})
	contenttest.Same(t, got["never_written"], fingerprint.Table{Name: "never_written", SeriesExact: true, Fields: []fingerprint.Field{{Name: "v", Kind: fingerprint.Float}}})

	// What the loader reads verifies against it (times within PostgreSQL's
	// microsecond, the float4 sums within their tolerance).
	read := contenttest.ReadILP(t, contentILP)
	mq, wq := contenttest.Query(read["m"], "host", "r"), contenttest.Query(read["weather"], "location_id")
	found, err := tg.Content(ctx, []fingerprint.Query{mq, wq})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"m", "weather"} {
		if bad := contenttest.Verify(read[name], found[name], false); bad != "" {
			t.Errorf("%s does not verify:\n%s", name, bad)
		}
	}

	// One value changed behind the loader's back: the count stays, the sum moves.
	conn := dbConn(t, tg.cfg.DBName)
	if _, err := conn.Exec(ctx, `UPDATE m SET i = -6 WHERE i = -5`); err != nil {
		t.Fatal(err)
	}
	got, err = tg.Content(ctx, []fingerprint.Query{contentQuery})
	if err != nil {
		t.Fatal(err)
	}
	if f := got["m"].Fields[3]; f.IntSum.Lo != math.MaxUint64-7 || f.Count != 3 || got["m"].Rows != 4 {
		t.Errorf("after UPDATE i = -6: rows %d, %+v", got["m"].Rows, f)
	}
	// A float4 value changed by a little more than its rounding.
	if _, err := conn.Exec(ctx, `UPDATE weather SET temperature_2m = 35.06 WHERE location_id = 4 AND temperature_2m > 35`); err != nil {
		t.Fatal(err)
	}
	found, err = tg.Content(ctx, []fingerprint.Query{mq, wq})
	if err != nil {
		t.Fatal(err)
	}
	if bad := contenttest.Verify(read["m"], found["m"], false); !strings.Contains(bad, `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`) {
		t.Errorf("after UPDATE i = -6, verification says:\n%s", bad)
	}
	if bad := contenttest.Verify(read["weather"], found["weather"], false); !strings.Contains(bad, `table "weather" field "temperature_2m": sum`) {
		t.Errorf("after UPDATE temperature_2m = 35.06, verification says:\n%s", bad)
	}
	// The last point moved by 2µs (1µs may hide in the microsecond the
	// loader floored away: read 4000001500, stored 4000001000).
	if _, err := conn.Exec(ctx, `UPDATE m SET time = time + interval '2 microseconds' WHERE f = 0.125`); err != nil {
		t.Fatal(err)
	}
	found, err = tg.Content(ctx, []fingerprint.Query{mq})
	if err != nil {
		t.Fatal(err)
	}
	if bad := contenttest.Verify(read["m"], found["m"], false); !strings.Contains(bad, `table "m": max time expected`) {
		t.Errorf("after moving the last point by 2µs, verification says:\n%s", bad)
	}
	// Two values changed by +1 and -1: count and sum as loaded, the max
	// moved.
	if _, err := conn.Exec(ctx, `UPDATE m SET f = f + 1 WHERE f = 2.25; UPDATE m SET f = f - 1 WHERE f = 1.5`); err != nil {
		t.Fatal(err)
	}
	found, err = tg.Content(ctx, []fingerprint.Query{mq})
	if err != nil {
		t.Fatal(err)
	}
	if bad := contenttest.Verify(read["m"], found["m"], false); !strings.Contains(bad, `table "m" field "f": max expected 2.25, found 3.25`) || strings.Contains(bad, `field "f": sum`) {
		t.Errorf("after f +1 and -1, verification says:\n%s", bad)
	}
}
