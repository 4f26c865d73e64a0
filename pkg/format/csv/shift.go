package csv

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"github.com/tsload/tsload/pkg/format"
)

// TimeRange returns the smallest and largest time (microseconds since
// the Unix epoch: the format's resolution) in field col of data's
// records; ok is false when data holds none. A time not written as
// AppendTime writes it (RFC 3339 in UTC, "Z", at most 6 fractional
// digits, none when zero) is a *format.TimeError: shifting it could not give
// the same text back.
func TimeRange(data []byte, col int) (lo, hi int64, ok bool, err error) {
	return format.TimeRange(func(add func(int64)) error {
		return eachTime(data, col, func(_ int, us int64, _, _ int) error { add(us); return nil })
	})
}

// AppendShifted appends data with field col of every record moved by
// delta microseconds; every other byte is copied as it is.
func AppendShifted(dst, data []byte, col int, delta int64) ([]byte, error) {
	last := 0
	var tmp []byte
	prev := int64(math.MinInt64)
	err := eachTime(data, col, func(rec int, us int64, start, end int) error {
		s, ok := format.Shift(us, delta)
		if !ok || s > maxMicros || s < minMicros {
			return &format.TimeError{Unit: "record", N: rec, Reason: "time shifted by " + strconv.FormatInt(delta, 10) + "µs leaves the years 1678-2262"}
		}
		if s != prev { // rows of one time come together: formatted once
			tmp, prev = AppendTime(tmp[:0], s*1000), s
		}
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
	return eachTimeOf(data, col, true, fn)
}

// eachTimeOf is eachTime; fast takes the fields of a record without
// quotes apart without the Scanner (FuzzShift compares both).
func eachTimeOf(data []byte, col int, fast bool, fn func(rec int, us int64, start, end int) error) error {
	sc := Scanner{Spans: true}
	var tmp []byte // the last time's text, us its value
	var us int64
	rec := 0
	for off := 0; off < len(data); {
		rec++
		f, next, ok := plainField(data, off, col)
		if !ok && next >= 0 && fast {
			return &format.TimeError{Unit: "record", N: rec, Reason: "no field " + strconv.Itoa(col+1) + " (the time column)"}
		}
		if next < 0 || !fast { // quotes: the Scanner finds the record's end
			sc.Reset()
			if !sc.Scan(data[off:]) {
				// The last record without its '\n' (a batch always has it).
				sc.Scan(append(data[off:len(data):len(data)], '\n'))
			}
			if sc.N <= col {
				return &format.TimeError{Unit: "record", N: rec, Reason: "no field " + strconv.Itoa(col+1) + " (the time column)"}
			}
			f, next = sc.Fields[col], off+sc.pos
		}
		text := data[off+int(f.Start) : off+int(f.End)]
		if f.Quoted || len(tmp) == 0 || !bytes.Equal(text, tmp) { // rows of one time come together: parsed once
			t, err := time.Parse(time.RFC3339Nano, string(text))
			if err == nil {
				tmp = AppendTime(tmp[:0], t.UnixNano())
			}
			if f.Quoted || err != nil || !bytes.Equal(tmp, text) || t.UnixNano()%1000 != 0 {
				return &format.TimeError{Unit: "record", N: rec, Reason: "time " + strconv.Quote(string(text)) + " is not RFC 3339 in UTC as tsload writes it (e.g. 2016-01-01T00:00:10Z)"}
			}
			us = t.UnixNano() / 1000
		}
		if err := fn(rec, us, off+int(f.Start), off+int(f.End)); err != nil {
			return err
		}
		off = next
	}
	return nil
}

// plainField finds field col of the record at data[off:] when its line
// holds no quote (what the Scanner would find: fields between commas, a
// '\r' before the '\n' not part of the last); next is where the next
// record starts, -1 when the line has a quote; ok is false when the
// record has no field col.
func plainField(data []byte, off, col int) (f Field, next int, ok bool) {
	line := data[off:]
	next = len(data) + 1
	if n := bytes.IndexByte(line, '\n'); n >= 0 {
		line, next = line[:n], off+n+1
	}
	if bytes.IndexByte(line, '"') >= 0 {
		return f, -1, false
	}
	start := 0
	for i := 0; i < col; i++ {
		c := bytes.IndexByte(line[start:], ',')
		if c < 0 {
			return f, next, false
		}
		start += c + 1
	}
	end := len(line)
	if c := bytes.IndexByte(line[start:], ','); c >= 0 {
		end = start + c
	} else if end > start && line[end-1] == '\r' && next <= len(data) {
		end--
	}
	return Field{Start: int32(start), End: int32(end)}, next, true
}
