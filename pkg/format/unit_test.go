package format

import (
	"testing"
	"time"
)

func TestParseUnit(t *testing.T) {
	for in, want := range map[string]time.Duration{"n": time.Nanosecond, "ns": time.Nanosecond, "u": time.Microsecond, "us": time.Microsecond,
		"µs": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour} {
		if got, err := ParseUnit(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "sec", "MS", "1s"} {
		if _, err := ParseUnit(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseEpochUnit(t *testing.T) {
	for in, want := range map[string]time.Duration{"ns": time.Nanosecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second} {
		if got, err := ParseEpochUnit(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "m", "h", "sec"} {
		if _, err := ParseEpochUnit(bad); err == nil || err.Error() != `time unit "`+bad+`": want s, ms, us or ns` {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseEpochUnit(f *testing.F) {
	for _, s := range []string{"s", "ms", "us", "µs", "ns", "m", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseEpochUnit(s)
		if (err == nil) != (u > 0 && u <= time.Second) {
			t.Fatalf("%q: %v, %v", s, u, err)
		}
	})
}
