package csv

import (
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		v    string
		unit time.Duration
		want int64
		err  string
	}{
		{"2016-01-01T00:00:10Z", 0, 1451606410e9, ""},
		{"2016-01-01T00:00:10.5+01:00", 0, 1451602810e9 + 5e8, ""},
		{"2016-01-01 00:00:10+00", 0, 1451606410e9, ""},
		{"2016-01-01 00:00:10.123456+00", 0, 1451606410e9 + 123456000, ""},
		{"1451606410", time.Second, 1451606410e9, ""},
		{"1451606410000", time.Millisecond, 1451606410e9, ""},
		{"-1", time.Microsecond, -1000, ""},
		{"1451606410", 0, 0, "an epoch number: say its unit"},
		{"2016-01-01T00:00:10", 0, 0, "not an RFC 3339 time with an offset"},
		{"1.5", time.Second, 0, "not an integer (the time unit is 1s)"},
		{"9223372036854775807", time.Second, 0, "out of range"},
		{"2300-01-01T00:00:00Z", 0, 0, "out of range"},
		{"", 0, 0, "empty timestamp"},
	} {
		got, err := ParseTime([]byte(c.v), c.unit)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %s: %d, %v; want error %q", c.v, c.unit, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q %s: %d, %v; want %d", c.v, c.unit, got, err, c.want)
		}
	}
}
