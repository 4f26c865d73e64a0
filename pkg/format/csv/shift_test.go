package csv

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/formattest"
	"github.com/tsload/tsload/pkg/format"
)

func TestShift(t *testing.T) {
	in := "2016-01-01T00:00:00Z,host_0,\"a,\"\"b\"\"\n c\",1.5\r\n2016-01-01T00:00:10.25Z,host_1,,2\n"
	got, err := AppendShifted(nil, []byte(in), 0, 20_500_000) // 20.5 s
	want := "2016-01-01T00:00:20.5Z,host_0,\"a,\"\"b\"\"\n c\",1.5\r\n2016-01-01T00:00:30.75Z,host_1,,2\n"
	if err != nil || string(got) != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
	lo, hi, ok, err := TimeRange([]byte(in), 0)
	if lo != 1451606400_000000 || hi != 1451606410_250000 || !ok || err != nil {
		t.Errorf("range %d %d %v %v", lo, hi, ok, err)
	}
	// The time column need not be the first.
	if got, err := AppendShifted(nil, []byte("a,1970-01-01T00:00:01Z"), 1, 1); err != nil || string(got) != "a,1970-01-01T00:00:01.000001Z" {
		t.Errorf("col 1: %q %v", got, err)
	}
	for _, c := range []struct{ in, reason string }{
		{"2016-01-01T00:00:00+01:00,a\n", "not RFC 3339 in UTC"},
		{"2016-01-01T00:00:00.000Z,a\n", "not RFC 3339 in UTC"},
		{"2016-01-01T00:00:00.0000001Z,a\n", "not RFC 3339 in UTC"},
		{"\"2016-01-01T00:00:00Z\",a\n", "not RFC 3339 in UTC"},
		{"2016-01-01T00:00:00Z,a\n1451606400,b\n", "record 2: time \"1451606400\""},
	} {
		_, _, _, err := TimeRange([]byte(c.in), 0)
		var te *format.TimeError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%q: %v, want %q", c.in, err, c.reason)
		}
	}
	if _, _, _, err := TimeRange([]byte("2016-01-01T00:00:00Z\n"), 1); err == nil || !strings.Contains(err.Error(), "no field 2") {
		t.Errorf("short record: %v", err)
	}
}

// shifter is TimeRange and AppendShifted with the time in field col, as
// far as AppendTime can write the shifted times.
func shifter(col int) formattest.Shifter {
	return formattest.Shifter{
		Range: func(data []byte) (int64, int64, bool, error) { return TimeRange(data, col) },
		Shift: func(dst, data []byte, delta int64) ([]byte, error) { return AppendShifted(dst, data, col, delta) },
		Fits: func(lo, hi, delta int64) bool {
			return delta <= maxMicros && delta >= minMicros && hi+delta <= maxMicros && lo+delta >= minMicros
		},
		Spans: func(b []byte, fn func(start, end int)) {
			eachTime(b, col, func(_ int, _ int64, start, end int) error { fn(start, end); return nil })
		},
	}
}

// FuzzShift: shifting then shifting back gives the bytes given, and a
// shift changes nothing but the time fields.
func FuzzShift(f *testing.F) {
	f.Add([]byte("2016-01-01T00:00:00Z,h,\"x,\n\"\n2016-01-01T00:00:10.5Z,h,1\r\n"), uint8(0), int64(10_000_000))
	f.Add([]byte("a,1970-01-01T00:00:00.000001Z\n"), uint8(1), int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, c uint8, delta int64) {
		col := int(c % 4)
		s := shifter(col).RoundTrip(t, data, delta)
		if s == nil {
			return
		}
		// The plain-line path finds what the Scanner finds.
		type hit struct{ rec, start, end int }
		var fast, slow []hit
		eachTimeOf(data, col, true, func(r int, _ int64, start, end int) error { fast = append(fast, hit{r, start, end}); return nil })
		eachTimeOf(data, col, false, func(r int, _ int64, start, end int) error { slow = append(slow, hit{r, start, end}); return nil })
		if fmt.Sprint(fast) != fmt.Sprint(slow) {
			t.Fatalf("%q: fields %v without the Scanner, %v with it", data, fast, slow)
		}
	})
}

// BenchmarkAppendShifted is a later pass's cost per batch: the copy with
// the times parsed, moved and formatted again.
func BenchmarkAppendShifted(b *testing.B) {
	row := []byte("2016-01-01T00:00:10Z,host_1,eu-west-1,58.1,2.5,24.3,1,2,3,4,5,6\n")
	shifter(0).Bench(b, func(int) []byte { return row }, 3600e6)
}
