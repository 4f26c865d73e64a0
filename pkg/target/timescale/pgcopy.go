package timescale

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/schema"
)

// copyHeader precedes the tuples of every COPY this package sends;
// copyTrailer ends them.
var (
	copyHeader  = []byte(pgcopy.PlainHeader)
	copyTrailer = []byte(pgcopy.Trailer)
)

// typeBool is a column type this package uses for ILP boolean fields of
// tables it infers from the lines; it is not one of pkg/schema's types and
// never appears in a file header.
const typeBool schema.Type = 200

// Type OIDs of PostgreSQL's built-in types.
const (
	oidBool        = 16
	oidInt8        = 20
	oidInt4        = 23
	oidText        = 25
	oidFloat4      = 700
	oidFloat8      = 701
	oidTimestamptz = 1184
)

func typeOID(t schema.Type) uint32 {
	switch t {
	case schema.Timestamp:
		return oidTimestamptz
	case schema.Text:
		return oidText
	case schema.Float8:
		return oidFloat8
	case schema.Float4:
		return oidFloat4
	case schema.Int8:
		return oidInt8
	case schema.Int4:
		return oidInt4
	case typeBool:
		return oidBool
	}
	return 0
}

func typeSQL(t schema.Type) string {
	if t == typeBool {
		return "boolean"
	}
	return t.String()
}

// fixedLen is the binary length of a fixed-size type, 0 for variable ones.
func fixedLen(t schema.Type) int {
	switch t {
	case schema.Timestamp, schema.Float8, schema.Int8:
		return 8
	case schema.Float4, schema.Int4:
		return 4
	case typeBool:
		return 1
	}
	return 0
}

// copyStream is an io.Reader over header, tuples and trailer (or any
// parts) without copying them. pgconn's CopyFrom reads it from a goroutine
// that can outlive CopyFrom when the connection fails, so every COPY gets
// its own stream, closed when CopyFrom returns: after close no Read touches
// the batch's memory again (the runner reuses it).
type copyStream struct {
	mu     sync.Mutex
	parts  [3][]byte
	i      int
	closed bool
}

func newCopyStream(a, b, c []byte) *copyStream {
	return &copyStream{parts: [3][]byte{a, b, c}}
}

func (s *copyStream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, io.ErrClosedPipe
	}
	for s.i < len(s.parts) {
		if len(s.parts[s.i]) == 0 {
			s.i++
			continue
		}
		n := copy(p, s.parts[s.i])
		s.parts[s.i] = s.parts[s.i][n:]
		return n, nil
	}
	return 0, io.EOF
}

// close waits for a Read in progress and makes later ones fail.
func (s *copyStream) close() {
	s.mu.Lock()
	s.closed = true
	s.parts = [3][]byte{}
	s.mu.Unlock()
}

// nextTuple decodes the COPY binary tuple at data[off:] of a table of
// len(fields) columns, storing each field's bytes in fields (nil for NULL,
// a non-nil empty slice for an empty value) and checking fixed-size types'
// lengths. It returns the offset of the next tuple. The error names the
// byte offset within data.
func nextTuple(data []byte, off int, cols []schema.Column, fields [][]byte) (int, error) {
	if len(data)-off < 2 {
		return off, fmt.Errorf("batch byte offset %d: truncated tuple header", off)
	}
	if n := int(int16(binary.BigEndian.Uint16(data[off:]))); n != len(cols) {
		return off, fmt.Errorf("batch byte offset %d: tuple has %d fields, table has %d columns", off, n, len(cols))
	}
	got, size, err := pgcopy.Tuple(fields[:0], data[off:], 0)
	if short, ok := err.(*pgcopy.ShortError); ok {
		f := short.Field - 1
		if short.Len < 0 {
			return off, fmt.Errorf("batch byte offset %d: truncated field %d (%s) length", off+short.Need-4, f+1, cols[f].Name)
		}
		return off, fmt.Errorf("batch byte offset %d: field %d (%s) length %d exceeds the data", off+short.Need-short.Len-4, f+1, cols[f].Name, short.Len)
	}
	if err != nil {
		return off, fmt.Errorf("batch byte offset %d: %v", off, err)
	}
	for i, v := range got {
		if fl := fixedLen(cols[i].Type); v != nil && fl != 0 && len(v) != fl {
			return off, fmt.Errorf("batch tuple at byte offset %d: field %d (%s) of type %s has length %d, want %d", off, i+1, cols[i].Name, typeSQL(cols[i].Type), len(v), fl)
		}
	}
	return off + size, nil
}

// appendTuple appends a COPY binary tuple of the given fields (nil = NULL).
func appendTuple(dst []byte, fields [][]byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(fields)))
	for _, f := range fields {
		if f == nil {
			dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32)
			continue
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// unixNanosToPG converts nanoseconds since the Unix epoch to PostgreSQL's
// timestamptz (microseconds since 2000-01-01), truncating toward minus
// infinity to whole microseconds.
func unixNanosToPG(ns int64) int64 {
	us := ns / 1000
	if ns%1000 < 0 {
		us--
	}
	return us - pgcopy.PostgresEpochMicros
}

// pgToUnixNanos is the inverse of unixNanosToPG for whole microseconds.
func pgToUnixNanos(us int64) int64 { return (us + pgcopy.PostgresEpochMicros) * 1000 }
