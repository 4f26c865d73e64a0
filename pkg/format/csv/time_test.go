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
		{"2016-01-01T00:00:10", 0, 1451606410e9, ""},
		{"2016-01-01 00:00:10", 0, 1451606410e9, ""},
		{"2016-01-01 00:00:10.25", 0, 1451606410e9 + 25e7, ""},
		{"1451606410", 0, 0, "an epoch number: its unit"},
		{"2016-01-01", 0, 0, "not a time"},
		{"01/02/2016 00:00:10", 0, 0, "not a time"},
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

func TestAppendEpochAsTime(t *testing.T) {
	in := "a,1451606410000,1.5\n\"b,c\",1451606410500,2\nd,-1000,3"
	got, err := AppendEpochAsTime(nil, []byte(in), 1, time.Millisecond)
	want := "a,2016-01-01T00:00:10Z,1.5\n\"b,c\",2016-01-01T00:00:10.5Z,2\nd,1969-12-31T23:59:59Z,3"
	if err != nil || string(got) != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	for in, e := range map[string]string{
		"a,1,2\nb,x,3\n": "record 2: time \"x\": not an integer",
		"a\n":            "record 1: no field 2",
	} {
		if _, err := AppendEpochAsTime(nil, []byte(in), 1, time.Second); err == nil || !strings.Contains(err.Error(), e) {
			t.Errorf("%q: %v; want %q", in, err, e)
		}
	}
}
