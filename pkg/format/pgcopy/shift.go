package pgcopy

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
)

// TimeError is a tuple whose timestamp cannot be read or shifted: Tuple
// is its 1-based number within the data given.
type TimeError struct {
	Tuple  int
	Reason string
}

func (e *TimeError) Error() string { return "tuple " + strconv.Itoa(e.Tuple) + ": " + e.Reason }

// TimeRange returns the smallest and largest value (microseconds since
// 2000-01-01, COPY binary's timestamptz) of field col of data's tuples
// (tuples only, as a batch holds them); ok is false when data holds none.
// A NULL or a field that is not 8 bytes is a *TimeError.
func TimeRange(data []byte, col int) (lo, hi int64, ok bool, err error) {
	lo, hi = math.MaxInt64, math.MinInt64
	err = eachTime(data, col, func(_ int, us int64, _ int) error {
		lo, hi, ok = min(lo, us), max(hi, us), true
		return nil
	})
	return lo, hi, ok, err
}

// AppendShifted appends data with field col of every tuple moved by delta
// microseconds; every other byte is copied as it is.
func AppendShifted(dst, data []byte, col int, delta int64) ([]byte, error) {
	base := len(dst)
	dst = append(dst, data...)
	err := eachTime(data, col, func(n int, us int64, at int) error {
		s := us + delta
		if (delta > 0 && s < us) || (delta < 0 && s > us) {
			return &TimeError{Tuple: n, Reason: "timestamp shifted by " + strconv.FormatInt(delta, 10) + "µs overflows int64"}
		}
		binary.BigEndian.PutUint64(dst[base+at:], uint64(s))
		return nil
	})
	return dst, err
}

// eachTime calls fn with the number, value and offset in data of field
// col of every tuple.
func eachTime(data []byte, col int, fn func(n int, us int64, at int) error) error {
	var fields [][]byte
	n := 0
	for off := 0; off < len(data); {
		n++
		var size int
		var err error
		fields, size, err = Tuple(fields[:0], data[off:], 0)
		if errors.Is(err, io.EOF) {
			return &TimeError{Tuple: n, Reason: "a trailer inside the tuples"}
		}
		if err != nil {
			return &TimeError{Tuple: n, Reason: err.Error()}
		}
		if len(fields) <= col || len(fields[col]) != 8 {
			return &TimeError{Tuple: n, Reason: "field " + strconv.Itoa(col+1) + " (the timestamp) is not an 8-byte timestamptz"}
		}
		at := off + 2
		for f := 0; f < col; f++ {
			at += 4 + max(0, int(int32(binary.BigEndian.Uint32(data[at:]))))
		}
		at += 4
		if err := fn(n, int64(binary.BigEndian.Uint64(data[at:])), at); err != nil {
			return err
		}
		off += size
	}
	return nil
}
