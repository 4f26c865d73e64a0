package pgcopy

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Header flag bits (PostgreSQL's COPY binary format): bit 16 says the
// tuples carry OIDs; bits 17-31 are critical (a reader must refuse a bit it
// does not know); bits 0-15 are backwards-compatible and ignored, as
// PostgreSQL's own COPY FROM ignores them.
const (
	FlagOIDs     = 1 << 16
	flagCritical = 0xffff << 16
)

// CheckFlags returns why a header's flags field cannot be read, or nil.
func CheckFlags(flags uint32) error {
	switch {
	case flags&FlagOIDs != 0:
		return fmt.Errorf("pgcopy flags %#x: bit 16 (OIDs in the tuples) is not supported", flags)
	case flags&flagCritical != 0:
		return fmt.Errorf("pgcopy flags %#x: unknown critical flag bits %#x (bits 17-31)", flags, flags&flagCritical)
	}
	return nil
}

// AppendTuple appends the COPY binary tuple of fields (nil: NULL) to dst:
// the inverse of Tuple, for callers that hold a row's values as bytes.
func AppendTuple(dst []byte, fields ...[]byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(fields)))
	for _, f := range fields {
		if f == nil {
			dst = binary.BigEndian.AppendUint32(dst, 0xffffffff)
			continue
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// Tuple reads the COPY binary tuple at b[0] (int16 field count, then per
// field an int32 length, -1 for NULL, and that many bytes), appending each
// field's bytes to dst (nil for NULL, a non-nil empty slice for an empty
// value, capacity capped so an append cannot overwrite the next field). It
// returns the fields and the tuple's size. A field count of -1 (the
// trailer) returns io.EOF and size 2. b ending inside the tuple is a
// *ShortError that says how many bytes would let the walk go on; a field
// longer than maxField (> 0) or a negative count or length is a
// *TupleError. This is the one reading of a tuple: the splitter cuts
// batches with it and the TimescaleDB target takes fields apart with it.
func Tuple(dst [][]byte, b []byte, maxField int) (fields [][]byte, size int, err error) {
	if len(b) < 2 {
		return dst, 0, &ShortError{Need: 2, Field: 0, Len: -1}
	}
	fc := int(int16(binary.BigEndian.Uint16(b)))
	if fc == -1 {
		return dst, 2, io.EOF
	}
	if fc < 0 {
		return dst, 0, &TupleError{Reason: fmt.Sprintf("invalid field count %d", fc)}
	}
	pos := 2
	for f := 1; f <= fc; f++ {
		if len(b) < pos+4 {
			return dst, 0, &ShortError{Need: pos + 4, Field: f, Count: fc, Len: -1}
		}
		n := int(int32(binary.BigEndian.Uint32(b[pos:])))
		pos += 4
		switch {
		case n == -1:
			dst = append(dst, nil)
			continue
		case n < 0:
			return dst, 0, &TupleError{Reason: fmt.Sprintf("invalid field length %d (field %d)", n, f)}
		case maxField > 0 && n > maxField:
			return dst, 0, &TupleError{Reason: fmt.Sprintf("field length %d (field %d) past the end of the input or the %d-byte limit", n, f, maxField)}
		case len(b)-pos < n:
			return dst, 0, &ShortError{Need: pos + n, Field: f, Count: fc, Len: n}
		}
		dst = append(dst, b[pos:pos+n:pos+n])
		pos += n
	}
	return dst, pos, nil
}

// ShortError is a tuple that goes on past the bytes given: Need bytes
// (from the tuple's start) would let the walk go on. Field is the field
// (1-based; 0: the field count) whose length (Len -1) or bytes (Len) are
// missing, of Count.
type ShortError struct{ Need, Field, Count, Len int }

func (e *ShortError) Error() string {
	switch {
	case e.Field == 0:
		return "truncated tuple (no field count)"
	case e.Len < 0:
		return fmt.Sprintf("tuple past the end of the input (field %d of %d)", e.Field, e.Count)
	}
	return fmt.Sprintf("field length %d (field %d) past the end of the input", e.Len, e.Field)
}

// TupleError is a tuple that cannot be read whatever follows it.
type TupleError struct{ Reason string }

func (e *TupleError) Error() string { return e.Reason }
