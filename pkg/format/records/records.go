// Package records reads the records of one table's CSV or PostgreSQL COPY
// binary input one at a time, as fields, for a target that writes rows
// itself (the embedded databases): the loop, its buffers, and the error
// that names the record and its byte offset. Line protocol has its own
// reader (ilp.PointReader).
package records

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/schema"
)

// Reader decodes records into fields, reusing its buffers from one call
// to the next. It is used by one goroutine.
type Reader struct {
	fields  [][]byte
	csv     csv.RecordParser
	scratch []byte
}

// Read calls fn with the fields of each record of data in turn: CSV
// records (the CSV grammar, csv.ParseRecord) or COPY binary tuples
// (pgcopy.Tuple) as kind says, each with as many fields as tb has columns,
// in tb's column order; a NULL field is nil. data holds the input's
// records from record firstRecord of source, at byte offset offset of it.
// The fields alias data and the reader's buffers: they are valid until fn
// returns. where wraps an error with the source, the record and the byte
// offset at which it starts: a decoding error is returned so, and fn wraps
// its own with it.
func (r *Reader) Read(data []byte, kind format.Format, tb *schema.Table, source string, firstRecord, offset int64, fn func(fields [][]byte, where func(error) error) error) error {
	if kind != format.CSV && kind != format.PGCopy {
		return fmt.Errorf("%s: %s input has no records of a table", source, kind)
	}
	n := len(tb.Columns)
	if cap(r.fields) < n {
		r.fields = make([][]byte, n)
	}
	var rec int64
	start := 0
	where := func(err error) error {
		return fmt.Errorf("%s: record %d (byte offset %d): %v", source, firstRecord+rec, offset+int64(start), err)
	}
	for off := 0; off < len(data); rec++ {
		start = off
		var fields [][]byte
		if kind == format.PGCopy {
			var size int
			var err error
			fields, size, err = pgcopy.Tuple(r.fields[:0], data[off:], 0)
			if err == io.EOF {
				break
			}
			if err != nil {
				return where(err)
			}
			if len(fields) != n {
				return where(fmt.Errorf("%d fields, table %q has %d columns", len(fields), tb.Name, n))
			}
			off += size
		} else {
			if cap(r.scratch) < len(data) {
				r.scratch = make([]byte, 0, len(data))
			}
			r.scratch = r.scratch[:0]
			fields = r.fields[:n]
			next, _, err := r.csv.ParseRecord(data, off, fields, &r.scratch)
			if err != nil {
				return where(err)
			}
			off = next
		}
		if err := fn(fields, where); err != nil {
			return err
		}
	}
	return nil
}

// Time is the time, in nanoseconds, that a field of a timestamp column
// holds in kind: CSV text as csv.ParseTime reads it (a time, not an
// epoch number of no stated unit), or a COPY binary timestamp (8 bytes of microseconds since
// 2000-01-01, pgcopy.PostgresEpochMicros).
func Time(kind format.Format, f []byte) (int64, error) {
	if kind != format.PGCopy {
		return csv.ParseTime(f, 0)
	}
	if len(f) != 8 {
		return 0, fmt.Errorf("%d bytes for a %s value", len(f), schema.Timestamp)
	}
	return (int64(binary.BigEndian.Uint64(f)) + pgcopy.PostgresEpochMicros) * 1000, nil
}
