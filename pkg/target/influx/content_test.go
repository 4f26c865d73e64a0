package influx

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// contentILP's aggregates are worked out by hand in contentWant: two
// int64 maxima and a -5 (a 64-bit sum wraps to -7), a two-byte rune, a
// point without tags. InfluxDB 1.6.7 takes no unsigned fields: the u
// field is left out there.
func contentILP(unsigned bool) string {
	u := ""
	if unsigned {
		u = ",u=18446744073709551615u"
	}
	return `m,host=a,r=x f=1.5,i=9223372036854775807i,s="héllo",b=true 1000000000
m,host=a,r=x f=2.25,i=9223372036854775807i,s="",b=false 2000000000
m,host=b i=-5i` + u + ` 3000000000
m f=0.125,b=true 4000000000
`
}

func contentQuery() fingerprint.Query {
	return fingerprint.Query{Table: "m", Time: "time", Tags: []string{"host", "r"}, Fields: []fingerprint.FieldQuery{
		{Name: "b", Kind: fingerprint.Bool}, {Name: "f", Kind: fingerprint.Float}, {Name: "gone", Kind: fingerprint.Float},
		{Name: "i", Kind: fingerprint.Int}, {Name: "s", Kind: fingerprint.String}, {Name: "u", Kind: fingerprint.Uint},
	}}
}

func contentWant(unsigned bool, strCount, strLen int64, absSum float64) fingerprint.Table {
	w := fingerprint.Table{Name: "m", Rows: 4, Series: 3, SeriesExact: true, MinTime: 1e9, MaxTime: 4e9, Fields: []fingerprint.Field{
		{Name: "b", Kind: fingerprint.Bool, Count: 3, True: 2},
		{Name: "f", Kind: fingerprint.Float, Count: 3, Sum: 3.875, AbsSum: absSum, Extremes: true, Min: 0.125, Max: 2.25},
		{Name: "gone", Kind: fingerprint.Float},
		{Name: "i", Kind: fingerprint.Int, Count: 3, IntSum: fingerprint.Int128{Lo: math.MaxUint64 - 6},
			Extremes: true, IntMin: fingerprint.Int128FromInt64(-5), IntMax: fingerprint.Int128FromInt64(math.MaxInt64)},
		{Name: "s", Kind: fingerprint.String, Count: strCount, Len: strLen},
		{Name: "u", Kind: fingerprint.Uint},
	}}
	if unsigned {
		w.Fields[5] = fingerprint.Field{Name: "u", Kind: fingerprint.Uint, Count: 1, IntSum: fingerprint.Int128{Lo: math.MaxUint64},
			Extremes: true, IntMin: fingerprint.Int128{Lo: math.MaxUint64}, IntMax: fingerprint.Int128{Lo: math.MaxUint64}}
	}
	return w
}

func writeILP(t *testing.T, tg *Target, data string) {
	t.Helper()
	w, err := tg.NewWriter(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	b := batch(data, 1)
	ack, err := w.Write(context.Background(), b)
	if err != nil || ack.Rows != b.Rows {
		t.Fatalf("write: ack %+v, %v", ack, err)
	}
}

// shiftedILP is written with a precision that is not the data's (u for
// nanosecond times): the count is right, every time 1000 times too large.
const shiftedILP = "shifted,host=a v=1 1000000000\nshifted,host=a v=2 2000000000\n"

// checkContent loads contentILP into tg, checks its fingerprint by hand
// and against what the loader reads, and that a missing measurement has
// none; then rewrites one point with another value (same series and
// time: the count stays) and checks that verification names the field;
// then loads shiftedILP through shifted (the same database, precision u)
// and checks that verification fails on the time range.
func checkContent(t *testing.T, tg, shifted *Target, unsigned bool, strCount, strLen int64, absSum float64) {
	t.Helper()
	ctx := context.Background()
	data := contentILP(unsigned)
	writeILP(t, tg, data)
	missing := fingerprint.Query{Table: "never_written", Time: "time", Tags: []string{"host"}, Fields: []fingerprint.FieldQuery{{Name: "v", Kind: fingerprint.Float}}}
	got, err := tg.Content(ctx, []fingerprint.Query{contentQuery(), missing})
	if err != nil {
		t.Fatal(err)
	}
	contenttest.Same(t, got["m"], contentWant(unsigned, strCount, strLen, absSum))
	contenttest.Same(t, got["never_written"], fingerprint.Table{Name: "never_written", SeriesExact: true, Fields: []fingerprint.Field{{Name: "v", Kind: fingerprint.Float}}})
	// A query naming the time column as a CSV did (ts) is answered from
	// the server's time column (issue 43 item 11).
	ts := contentQuery()
	ts.Time = "ts"
	if got, err = tg.Content(ctx, []fingerprint.Query{ts}); err != nil {
		t.Fatalf("time column ts: %v", err)
	}
	contenttest.Same(t, got["m"], contentWant(unsigned, strCount, strLen, absSum))

	read := contenttest.ReadILP(t, data)
	verify := func() string { return contenttest.Check(t, tg, read["m"], true, "host", "r") }
	if bad := verify(); bad != "" {
		t.Errorf("the load does not verify:\n%s", bad)
	}
	writeILP(t, tg, "m,host=b i=-6i 3000000000\n")
	if bad := verify(); !strings.Contains(bad, `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`) ||
		!strings.Contains(bad, `table "m" field "i": min expected -5, found -6`) || strings.Contains(bad, "rows") {
		t.Errorf("after rewriting i=-5 as -6, verification says:\n%s", bad)
	}

	writeILP(t, shifted, shiftedILP)
	sread := contenttest.ReadILP(t, shiftedILP)
	if bad := contenttest.Check(t, tg, sread["shifted"], true, "host"); !strings.Contains(bad, `table "shifted": min time expected 1970-01-01T00:00:01Z`) || strings.Contains(bad, "rows") {
		t.Errorf("nanoseconds written as microseconds, verification says:\n%s", bad)
	}
}

// sameDB is a second target on tg's database, its precision p.
func sameDB(t *testing.T, cfg Config, p string) *Target {
	cfg.Precision = p
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func TestContentV3(t *testing.T) {
	_, at := v3Real(t)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{at.url}}, Token: at.token, DBName: at.db, Precision: "n"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Prepare(context.Background(), load.PrepareOptions{DBName: at.db, CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	checkContent(t, tg, sameDB(t, tg.cfg, "u"), true, 2, 6, 3.875)
}

func TestContentV1(t *testing.T) {
	tg := newTarget(t, influxURL(t), Config{})
	checkContent(t, tg, sameDB(t, tg.cfg, "u"), false, 2, -1, 0) // no string lengths, no sum(abs())
}

func TestContentV2(t *testing.T) {
	tg := newV2Target(t, influx2(t))
	checkContent(t, tg, sameDB(t, tg.cfg, "u"), true, -1, -1, 0) // strings not checked, no sum(abs())
}
