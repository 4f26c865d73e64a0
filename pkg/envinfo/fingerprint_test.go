package envinfo

import (
	"math"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/fingerprint"
)

// TestFingerprintExtremesRoundTrip: min and max survive the dataset
// description exactly (int64 and uint64 extremes, an infinity), and one
// without them reads back as unknown.
func TestFingerprintExtremesRoundTrip(t *testing.T) {
	a := fingerprint.NewAcc(fingerprint.Options{})
	tb := a.Table([]byte("m"))
	for i, v := range []int64{math.MinInt64, math.MaxInt64} {
		tb.Row(1, int64(i))
		tb.Field([]byte("i"), fingerprint.Int).Int(v)
		tb.Field([]byte("u"), fingerprint.Uint).Uint(math.MaxUint64 - uint64(i))
		tb.Field([]byte("f"), fingerprint.Float).Float([]float64{0.1, math.Inf(1)}[i])
	}
	read := a.Result()
	tf := FingerprintOf(read)
	back := tf[0].Read()
	for i, f := range back.Fields {
		w := read["m"].Fields[i]
		if !f.Extremes || f.Min != w.Min || f.Max != w.Max || f.IntMin != w.IntMin || f.IntMax != w.IntMax {
			t.Errorf("field %s: %+v, want %+v", f.Name, f, w)
		}
	}
	r := fingerprint.Compare(fingerprint.ExpectRead(back, false), &read["m"].Table)
	if !r.OK() {
		t.Errorf("%v", r.Mismatches)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "min and max") {
			t.Errorf("note: %s", n)
		}
	}
	tf[0].Fields[0].Min, tf[0].Fields[0].Max = "", ""
	if f := tf[0].Read().Fields[0]; f.Extremes {
		t.Errorf("no min and max given: %+v", f)
	}
}
