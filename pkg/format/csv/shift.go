package csv

import (
	"math"
	"strconv"
	"time"
)

// TimeError is a record whose time field cannot be read or shifted:
// Record is its 1-based number within the data given.
type TimeError struct {
	Record int
	Reason string
}

func (e *TimeError) Error() string { return "record " + strconv.Itoa(e.Record) + ": " + e.Reason }

// TimeRange returns the smallest and largest time (microseconds since
// the Unix epoch: the format's resolution) in field col of data's
// records; ok is false when data holds none. A time not written as
// AppendTime writes it (RFC 3339 in UTC, "Z", at most 6 fractional
// digits, none when zero) is a *TimeError: shifting it could not give
// the same text back.
func TimeRange(data []byte, col int) (lo, hi int64, ok bool, err error) {
	lo, hi = math.MaxInt64, math.MinInt64
	err = eachTime(data, col, func(_ int, us int64, _, _ int) error {
		lo, hi, ok = min(lo, us), max(hi, us), true
		return nil
	})
	return lo, hi, ok, err
}

// AppendShifted appends data with field col of every record moved by
// delta microseconds; every other byte is copied as it is.
func AppendShifted(dst, data []byte, col int, delta int64) ([]byte, error) {
	last := 0
	var tmp []byte
	err := eachTime(data, col, func(rec int, us int64, start, end int) error {
		s := us + delta
		if (delta > 0 && s < us) || (delta < 0 && s > us) || s > maxMicros || s < minMicros {
			return &TimeError{Record: rec, Reason: "time shifted by " + strconv.FormatInt(delta, 10) + "µs leaves the years 1678-2262"}
		}
		tmp = AppendTime(tmp[:0], s*1000)
		dst = append(append(dst, data[last:start]...), tmp...)
		last = end
		return nil
	})
	return append(dst, data[last:]...), err
}

// The times AppendTime can write (int64 nanoseconds).
const (
	maxMicros = math.MaxInt64 / 1000
	minMicros = math.MinInt64 / 1000
)

// eachTime calls fn with the number, time and the field's offsets of
// every record of data.
func eachTime(data []byte, col int, fn func(rec int, us int64, start, end int) error) error {
	sc := Scanner{Spans: true}
	var tmp []byte
	rec := 0
	for off := 0; off < len(data); {
		rec++
		sc.Reset()
		if !sc.Scan(data[off:]) {
			// The last record without its '\n' (a batch always has it).
			sc.Scan(append(data[off:len(data):len(data)], '\n'))
		}
		if sc.N <= col {
			return &TimeError{Record: rec, Reason: "no field " + strconv.Itoa(col+1) + " (the time column)"}
		}
		f := sc.Fields[col]
		text := data[off+int(f.Start) : off+int(f.End)]
		t, err := time.Parse(time.RFC3339Nano, string(text))
		if err == nil {
			tmp = AppendTime(tmp[:0], t.UnixNano())
		}
		if f.Quoted || err != nil || string(tmp) != string(text) || t.UnixNano()%1000 != 0 {
			return &TimeError{Record: rec, Reason: "time " + strconv.Quote(string(text)) + " is not RFC 3339 in UTC as tsload writes it (e.g. 2016-01-01T00:00:10Z)"}
		}
		if err := fn(rec, t.UnixNano()/1000, off+int(f.Start), off+int(f.End)); err != nil {
			return err
		}
		off += sc.pos
	}
	return nil
}
