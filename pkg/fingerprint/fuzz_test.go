package fingerprint

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzMergeSplit: any rows, cut anywhere into two accumulators, merge in
// either order to what one accumulator reads (counts, exact sums,
// extremes); and the read fingerprint always verifies against itself.
func FuzzMergeSplit(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11"), uint16(3))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\x7f\x00\x00\x00\x00\x00\x00\x00\x80\x01"), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		type rec struct {
			series uint64
			ts     int64
			kind   Kind
			bits   uint64
		}
		var recs []rec
		for len(data) >= 10 {
			bits := binary.LittleEndian.Uint64(data[2:])
			recs = append(recs, rec{series: uint64(data[0] % 7), ts: int64(data[1]) - 100, kind: Kind(1 + data[0]%5), bits: bits})
			data = data[10:]
		}
		add := func(a *Acc, rs []rec) {
			for _, r := range rs {
				tb := a.Table([]byte{'t', byte('0' + r.series%2)})
				tb.Row(r.series, r.ts)
				fa := tb.Field([]byte{'f', byte('0' + r.kind)}, r.kind)
				switch r.kind {
				case Float:
					if r.bits&1 == 1 { // a plain decimal, summed exactly
						fa.Decimal((r.bits>>12)%1e15, int(r.bits>>4)%23, r.bits&2 != 0)
						continue
					}
					v := math.Float64frombits(r.bits)
					if math.Abs(v) > 1e300 {
						v = math.Mod(v, 1e300)
					}
					fa.Float(v)
				case Int:
					fa.Int(int64(r.bits))
				case Uint:
					fa.Uint(r.bits)
				case String:
					fa.String(int(r.bits % 100))
				case Bool:
					fa.Bool(r.bits&1 == 1)
				}
			}
		}
		c := int(cut) % (len(recs) + 1)
		one, x, y := NewAcc(Options{Keys: true}), NewAcc(Options{Keys: true}), NewAcc(Options{Keys: true})
		add(one, recs)
		add(x, recs[:c])
		add(y, recs[c:])
		xy, yx := NewAcc(Options{Keys: true}), NewAcc(Options{Keys: true})
		xy.Merge(x)
		xy.Merge(y)
		yx.Merge(y)
		yx.Merge(x)
		want := one.Result()
		for _, got := range []map[string]*Read{xy.Result(), yx.Result()} {
			for n, w := range want {
				g := got[n]
				if g == nil || g.Rows != w.Rows || g.Series != w.Series || g.MinTime != w.MinTime || g.MaxTime != w.MaxTime || g.Repeats != w.Repeats || len(g.Fields) != len(w.Fields) {
					t.Fatalf("table %s: %+v, want %+v", n, g, w)
				}
				for i, f := range w.Fields {
					h := g.Fields[i]
					if h.Count != f.Count || h.IntSum != f.IntSum || h.Len != f.Len || h.True != f.True ||
						h.Extremes != f.Extremes || h.Min != f.Min || h.Max != f.Max || h.IntMin != f.IntMin || h.IntMax != f.IntMax {
						t.Fatalf("field %s: %+v, want %+v", f.Name, h, f)
					}
				}
				// What was read verifies against itself merged another way.
				if r := Compare(ExpectRead(w, false), &g.Table); !r.OK() {
					t.Fatalf("table %s: %v", n, r.Mismatches)
				}
			}
		}
	})
}
