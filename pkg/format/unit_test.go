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
