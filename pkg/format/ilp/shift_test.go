package ilp

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tsload/tsload/internal/formattest"
	"github.com/tsload/tsload/pkg/format"
)

func TestShift(t *testing.T) {
	in := "# c\ncpu,host=a\\ b u=1,s=\"x 2\" 100\n\ncpu,host=b u=2 -5\r\nm f=1i 7"
	got, err := AppendShifted(nil, []byte(in), 1000)
	want := "# c\ncpu,host=a\\ b u=1,s=\"x 2\" 1100\n\ncpu,host=b u=2 995\r\nm f=1i 1007"
	if err != nil || string(got) != want {
		t.Fatalf("got %q, %v\nwant %q", got, err, want)
	}
	lo, hi, ok, err := TimeRange([]byte(in))
	if lo != -5 || hi != 100 || !ok || err != nil {
		t.Errorf("range %d %d %v %v", lo, hi, ok, err)
	}
	for _, c := range []struct{ in, reason string }{
		{"cpu u=1\n", "no timestamp"},
		{"cpu u=1 \n", "no timestamp"},
		{"cpu,t=a s=\"a 1\"\n", "no timestamp"},
		{"cpu u=1 0012\n", "not a decimal integer"},
		{"ok u=1 1\ncpu u=1 1.5\n", "line 2: timestamp \"1.5\""},
	} {
		_, _, _, err := TimeRange([]byte(c.in))
		var te *format.TimeError
		if !errors.As(err, &te) || !bytes.Contains([]byte(err.Error()), []byte(c.reason)) {
			t.Errorf("%q: %v, want %q", c.in, err, c.reason)
		}
	}
	if _, err := AppendShifted(nil, []byte("m f=1 9223372036854775800\n"), 10); err == nil {
		t.Error("overflow not refused")
	}
}

// FuzzShift: shifting then shifting back gives the bytes given, and a
// shift changes nothing but the timestamp tokens.
func FuzzShift(f *testing.F) {
	f.Add([]byte("cpu,host=a u=1 100\n# x\nm f=\"a b\" -3\r\n"), int64(7))
	f.Add([]byte("m,t=a\\ b f=1i 0"), int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, delta int64) {
		formattest.Shifter{Range: TimeRange, Shift: AppendShifted, Spans: func(b []byte, fn func(start, end int)) {
			eachTimestamp(b, func(_ int, _ int64, start, end int) error { fn(start, end); return nil })
		}}.RoundTrip(t, data, delta)
	})
}

// BenchmarkAppendShifted is a later pass's cost per batch: the copy with
// the timestamps moved.
func BenchmarkAppendShifted(b *testing.B) {
	row := []byte("cpu,hostname=host_1,region=eu-west-1 usage_user=58.1,usage_system=2.5,usage_idle=24.3 1451606400000000000\n")
	formattest.Shifter{Shift: AppendShifted}.Bench(b, func(int) []byte { return row }, 3600e9)
}
