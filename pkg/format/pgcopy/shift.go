package pgcopy

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"

	"github.com/tsload/tsload/pkg/format"
)

// TimeRange returns the smallest and largest value (microseconds since
// 2000-01-01, COPY binary's timestamptz) of field col of data's tuples
// (tuples only, as a batch holds them); ok is false when data holds none.
// A NULL or a field that is not 8 bytes is a *format.TimeError.
func TimeRange(data []byte, col int) (lo, hi int64, ok bool, err error) {
	return format.TimeRange(func(add func(int64)) error {
		return eachTime(data, col, func(_ int, us int64, _ int) error { add(us); return nil })
	})
}

// AppendShifted appends data with field col of every tuple moved by delta
// microseconds; every other byte is copied as it is.
func AppendShifted(dst, data []byte, col int, delta int64) ([]byte, error) {
	base := len(dst)
	dst = append(dst, data...)
	err := eachTime(data, col, func(n int, us int64, at int) error {
		s, ok := format.Shift(us, delta)
		if !ok {
			return &format.TimeError{Unit: "tuple", N: n, Reason: "timestamp shifted by " + strconv.FormatInt(delta, 10) + "µs overflows int64"}
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
			return &format.TimeError{Unit: "tuple", N: n, Reason: "a trailer inside the tuples"}
		}
		if err != nil {
			return &format.TimeError{Unit: "tuple", N: n, Reason: err.Error()}
		}
		if len(fields) <= col || len(fields[col]) != 8 {
			return &format.TimeError{Unit: "tuple", N: n, Reason: "field " + strconv.Itoa(col+1) + " (the timestamp) is not an 8-byte timestamptz"}
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
