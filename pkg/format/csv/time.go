package csv

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/tsload/tsload/pkg/format"
)

// timeLayouts are the timestamp texts ParseTime reads: RFC 3339 (what
// AppendTime writes), PostgreSQL's own output ("2016-01-01 00:00:10+00",
// a space for the T, an hour-only offset), which its CSV exports carry,
// and both without an offset ("2016-01-01 00:00:10", what most exports
// and spreadsheets write), read as UTC.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02T15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
}

// ErrEpochUnit is the error of ParseTime for an integer time read without
// a unit: the caller says how the unit is given (the loaders' --time-unit).
var ErrEpochUnit = errors.New("an epoch number: its unit (s, ms, us or ns) is not given")

// ParseTime reads a timestamp field as nanoseconds since the Unix epoch:
// with unit 0 a time of timeLayouts (without an offset: UTC), else an
// integer count of unit since the epoch. This is the one reading of a CSV
// time column for every loader (the runner's lines, the inferred types of
// pkg/split and of the runner's sample). A time outside
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
		return 0, ErrEpochUnit
	}
	return 0, errors.New("not a time (2016-01-01T00:00:00Z, 2016-01-01 00:00:00+01 or 2016-01-01 00:00:00, read as UTC)")
}

// AppendEpochAsTime appends data with field col of every record, an
// integer count of unit since the Unix epoch (as ParseTime reads it), written
// as AppendTime writes a time; every other byte is copied as it is. It is
// how a table made with a timestamp column takes epoch times (--time-unit)
// from a database that reads CSV itself. An error is a *format.TimeError
// naming the batch's record.
func AppendEpochAsTime(dst, data []byte, col int, unit time.Duration) ([]byte, error) {
	sc := Scanner{Spans: true}
	last := 0
	for off, rec := 0, 1; off < len(data); rec++ {
		f, next, ok := plainField(data, off, col)
		if next < 0 { // quotes: the Scanner finds the record's end
			sc.Reset()
			if !sc.Scan(data[off:]) {
				sc.Scan(append(data[off:len(data):len(data)], '\n'))
			}
			ok = sc.N > col
			if ok {
				f, next = sc.Fields[col], off+sc.pos
			}
		}
		if !ok {
			return dst, &format.TimeError{Unit: "record", N: rec, Reason: "no field " + strconv.Itoa(col+1) + " (the time column)"}
		}
		text := data[off+int(f.Start) : off+int(f.End)]
		ns, err := ParseTime(text, unit)
		if err != nil {
			return dst, &format.TimeError{Unit: "record", N: rec, Reason: "time " + strconv.Quote(string(text)) + ": " + err.Error()}
		}
		dst = AppendTime(append(dst, data[last:off+int(f.Start)]...), ns)
		last = off + int(f.End)
		off = next
	}
	return append(dst, data[last:]...), nil
}
