package pgcopy

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/formattest"
)

// tuple builds a COPY tuple of fields (nil: NULL).
func tuple(fields ...[]byte) []byte { return AppendTuple(nil, fields...) }

func ts(us int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(us)) }

func TestShift(t *testing.T) {
	in := append(tuple([]byte("host_0"), nil, ts(100)), tuple([]byte(""), []byte("x"), ts(-7))...)
	got, err := AppendShifted([]byte("keep"), in, 2, 1000)
	want := append([]byte("keep"), append(tuple([]byte("host_0"), nil, ts(1100)), tuple([]byte(""), []byte("x"), ts(993))...)...)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %x, %v\nwant %x", got, err, want)
	}
	lo, hi, ok, err := TimeRange(in, 2)
	if lo != -7 || hi != 100 || !ok || err != nil {
		t.Errorf("range %d %d %v %v", lo, hi, ok, err)
	}
	for _, c := range []struct {
		in     []byte
		reason string
	}{
		{tuple(ts(1), nil), "tuple 1: field 2 (the timestamp) is not an 8-byte timestamptz"},
		{append(tuple(ts(1), ts(2)), tuple(ts(1), []byte("abcd"))...), "tuple 2: field 2"},
		{tuple(ts(1)), "tuple 1: field 2"},
		{tuple(ts(1), ts(2))[:10], "tuple 1:"},
	} {
		if _, _, _, err := TimeRange(c.in, 1); err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%x: %v, want %q", c.in, err, c.reason)
		}
	}
}

// shifter is TimeRange and AppendShifted with the time in field col.
func shifter(col int) formattest.Shifter {
	return formattest.Shifter{
		Range: func(data []byte) (int64, int64, bool, error) { return TimeRange(data, col) },
		Shift: func(dst, data []byte, delta int64) ([]byte, error) { return AppendShifted(dst, data, col, delta) },
		Spans: func(b []byte, fn func(start, end int)) {
			eachTime(b, col, func(_ int, _ int64, at int) error { fn(at, at+8); return nil })
		},
	}
}

// FuzzShift: shifting then shifting back gives the bytes given, and a
// shift changes nothing but the 8 bytes of each tuple's timestamp.
func FuzzShift(f *testing.F) {
	f.Add(append(tuple([]byte("h"), ts(5)), tuple(nil, ts(9))...), uint8(1), int64(3))
	f.Add(tuple(ts(0)), uint8(0), int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, c uint8, delta int64) {
		shifter(int(c%4)).RoundTrip(t, data, delta)
	})
}

// BenchmarkAppendShifted is a later pass's cost per batch: the copy with
// each tuple's timestamp rewritten.
func BenchmarkAppendShifted(b *testing.B) {
	shifter(0).Bench(b, func(i int) []byte {
		return tuple(ts(int64(i)), []byte("host_1"), []byte("eu-west-1"), ts(1), ts(2), ts(3), ts(4))
	}, 3600e6)
}
