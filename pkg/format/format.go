// Package format defines the row that the generator hands to a file-format
// encoder and the Encoder interface that the ilp, csv and pgcopy encoders
// implement (docs/formats.md describes every byte they write).
//
// An encoder appends to a caller-owned []byte and never allocates per row in
// the steady state. A stream is StreamHeader, then chunks (ChunkHeader and
// the rows of one table), then StreamTrailer. For single-table streams and
// ILP, ChunkHeader writes nothing.
package format

import (
	"fmt"

	"github.com/tsload/tsload/pkg/schema"
)

// Row is one row of a table. The generator owns and reuses it; encoders must
// not keep references to it or to its slices.
type Row struct {
	// Table indexes the encoder's table list.
	Table int
	// Time is nanoseconds since the Unix epoch.
	Time int64
	// Tags holds one value per tag column, in column order; nil is NULL.
	// For a tag column of integer type it holds the decimal text (ILP) and
	// TagInt holds the number (csv, pgcopy).
	Tags   [][]byte
	TagInt []int64
	// Float and Int hold one value per field column (the columns after the
	// tags), in column order; an encoder reads Float for float4/float8 and
	// Int for int4/int8 columns.
	Float []float64
	Int   []int64
	// Null has bit i set when field i is NULL.
	Null uint64
	// Key, when not nil, is a cache of the row's series: an encoder that
	// finds *Key empty appends its encoding of the table and tags to *Key,
	// and one that finds *Key non-empty writes *Key instead of encoding the
	// table and tags again. The generator passes the same Key only for rows
	// of the same table and tag values, and one Key to one encoder only.
	Key *[]byte
}

// Encoder encodes rows into one of the tsload file formats.
type Encoder interface {
	// StreamHeader appends what precedes the first row.
	StreamHeader(dst []byte) []byte
	// ChunkHeader appends what precedes payloadLen bytes of rows of one table
	// in a multi-table stream (a CSV #data line, a pgcopy frame header).
	ChunkHeader(dst []byte, table int, payloadLen int) []byte
	// AppendRow appends one row.
	AppendRow(dst []byte, r *Row) ([]byte, error)
	// StreamTrailer appends what follows the last row.
	StreamTrailer(dst []byte) []byte
}

// TableInfo is a table's layout as the encoders use it: tags after the
// timestamp, then fields.
type TableInfo struct {
	*schema.Table
	NameBytes []byte
	TagCols   []schema.Column // tag columns, in column order
	FieldCols []schema.Column // field columns, in column order
}

// Describe checks that every table has the layout Row assumes (timestamp
// first, then the tags, then at most 64 fields) and returns its TableInfo.
func Describe(tables []*schema.Table) ([]TableInfo, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("no tables")
	}
	out := make([]TableInfo, len(tables))
	for i, t := range tables {
		if len(t.Columns) < 2 || t.Columns[0].Type != schema.Timestamp {
			return nil, fmt.Errorf("table %s: the first column must be the timestamp", t.Name)
		}
		ti := TableInfo{Table: t, NameBytes: []byte(t.Name)}
		for _, c := range t.Columns[1:] {
			if c.Tag {
				if len(ti.FieldCols) > 0 {
					return nil, fmt.Errorf("table %s: tag %s after a field", t.Name, c.Name)
				}
				ti.TagCols = append(ti.TagCols, c)
			} else {
				ti.FieldCols = append(ti.FieldCols, c)
			}
		}
		if len(ti.FieldCols) == 0 || len(ti.FieldCols) > 64 {
			return nil, fmt.Errorf("table %s: %d fields (want 1 to 64)", t.Name, len(ti.FieldCols))
		}
		out[i] = ti
	}
	return out, nil
}

// IsFloat reports whether t is stored from Row.Float.
func IsFloat(t schema.Type) bool { return t == schema.Float8 || t == schema.Float4 }
