package csv

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// timeLayouts are the timestamp texts ParseTime reads: RFC 3339 (what
// AppendTime writes) and PostgreSQL's own output ("2016-01-01 00:00:10+00",
// a space for the T, an hour-only offset), which its CSV exports carry.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02T15:04:05.999999999Z07",
}

// ParseTime reads a timestamp field as nanoseconds since the Unix epoch:
// with unit 0 a time with its offset (RFC 3339, or PostgreSQL's text
// form), else an integer count of unit since the epoch. A time outside
// int64 nanoseconds (the years 1678-2262) is an error.
func ParseTime(v []byte, unit time.Duration) (int64, error) {
	if len(v) == 0 {
		return 0, errors.New("empty timestamp")
	}
	if unit > 0 {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, errors.New("not an integer (the time unit is " + unit.String() + ")")
		}
		if n > math.MaxInt64/int64(unit) || n < math.MinInt64/int64(unit) {
			return 0, errors.New("out of range (int64 nanoseconds: the years 1678-2262)")
		}
		return n * int64(unit), nil
	}
	s := string(v)
	for _, l := range timeLayouts {
		t, err := time.Parse(l, s)
		if err != nil {
			continue
		}
		if y := t.Year(); y < 1678 || y > 2261 {
			return 0, errors.New("out of range (int64 nanoseconds: the years 1678-2262)")
		}
		return t.UnixNano(), nil
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return 0, errors.New("an epoch number: say its unit (s, ms, us or ns)")
	}
	return 0, errors.New("not an RFC 3339 time with an offset (2016-01-01T00:00:00Z)")
}
