// Package pgcopy owns the COPY binary grammar: the header's flags
// (CheckFlags) and the one tuple walk (Tuple) that the splitter and the
// TimescaleDB target share, and the encoder below.
//
// It encodes rows in PostgreSQL's binary COPY format (loadable
// with COPY ... FROM STDIN (FORMAT binary)) and in the tsload multi-table
// TSLCOPY stream that frames COPY tuples per table; docs/formats.md
// describes both byte by byte. A single-table stream declares its table
// (name, columns, types, tags) in a tsload chunk in COPY's header extension
// area, which PostgreSQL skips, so a loader needs no table name.
package pgcopy

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// Signature starts a single-table file; MultiMagic a multi-table stream.
// ChunkTag starts the tsload table chunk in a single-table file's header
// extension area. PlainHeader is the signature, flags (0) and an empty header
// extension: what precedes the tuples of a COPY that declares nothing.
// Trailer (a field count of -1) ends the tuples of a COPY.
const (
	Signature   = "PGCOPY\n\xff\r\n\x00"
	PlainHeader = Signature + "\x00\x00\x00\x00\x00\x00\x00\x00"
	Trailer     = "\xff\xff"
	MultiMagic  = "TSLCOPY\n\xff\r\n"
	ChunkTag    = "tsload.table\x00"
)

// PostgresEpochMicros is 2000-01-01T00:00:00Z in microseconds since the Unix
// epoch: COPY binary timestamps count from there.
const PostgresEpochMicros = 946684800 * 1000000

// Encoder writes COPY binary. Call New.
type Encoder struct {
	tables []format.TableInfo
	multi  bool
}

var _ format.Encoder = (*Encoder)(nil)

// New returns an encoder. With multi false there must be exactly one table.
// A multi-table stream may declare at most 65535 tables.
func New(tables []*schema.Table, multi bool) (*Encoder, error) {
	infos, err := format.Describe(tables)
	if err != nil {
		return nil, err
	}
	if !multi && len(infos) != 1 {
		return nil, fmt.Errorf("a single-table pgcopy stream needs exactly one table, got %d", len(infos))
	}
	if len(infos) > math.MaxUint16-1 {
		return nil, fmt.Errorf("%d tables: too many for one stream", len(infos))
	}
	for _, t := range infos {
		if len(t.Columns) > math.MaxInt16 {
			return nil, fmt.Errorf("table %s: too many columns", t.Name)
		}
	}
	return &Encoder{tables: infos, multi: multi}, nil
}

// StreamHeader appends the single-table COPY header, or the TSLCOPY
// header with every table's columns.
//
// The single-table header is COPY's signature, zero flags and a header
// extension area holding one tsload table chunk: ChunkTag, a uint32 length
// and the table's declaration as in the TSLCOPY header. PostgreSQL's COPY
// FROM skips the extension area (its length says how much); tsload's
// loaders read the table's name and columns from it.
func (e *Encoder) StreamHeader(dst []byte) []byte {
	if !e.multi {
		dst = append(dst, Signature...)
		dst = append(dst, 0, 0, 0, 0) // flags
		start := len(dst)
		dst = append(dst, 0, 0, 0, 0) // extension length, set below
		dst = append(dst, ChunkTag...)
		dst = append(dst, 0, 0, 0, 0) // chunk length, set below
		decl := len(dst)
		dst = AppendTableDecl(dst, &e.tables[0])
		binary.BigEndian.PutUint32(dst[decl-4:], uint32(len(dst)-decl))
		binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
		return dst
	}
	dst = append(dst, MultiMagic...)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(e.tables)))
	for i := range e.tables {
		dst = AppendTableDecl(dst, &e.tables[i])
	}
	return dst
}

// AppendTableDecl appends a table declaration: uint16 name length, name,
// uint16 column count, then per column uint16 name length, name, uint8
// type code (schema.Type) and uint8 flags (bit 0: tag).
func AppendTableDecl(dst []byte, t *format.TableInfo) []byte {
	dst = appendName(dst, t.Name)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(t.Columns)))
	for _, c := range t.Columns {
		dst = appendName(dst, c.Name)
		var flags byte
		if c.Tag {
			flags = 1
		}
		dst = append(dst, byte(c.Type), flags)
	}
	return dst
}

func appendName(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// MaxFrame is the largest payload of one multi-table frame.
const MaxFrame = math.MaxUint32

// ChunkHeader appends a frame header (uint16 table index, uint32 payload
// length) in a multi-table stream. payloadLen must not exceed MaxFrame.
func (e *Encoder) ChunkHeader(dst []byte, table int, payloadLen int) []byte {
	if !e.multi {
		return dst
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(table))
	return binary.BigEndian.AppendUint32(dst, uint32(payloadLen))
}

// StreamTrailer appends the COPY trailer (int16 -1) or the multi-table end
// marker (ff ff): the same two bytes.
func (e *Encoder) StreamTrailer(dst []byte) []byte { return append(dst, Trailer...) }

// AppendRow appends one tuple.
func (e *Encoder) AppendRow(dst []byte, r *format.Row) ([]byte, error) {
	t := &e.tables[r.Table]
	be := binary.BigEndian
	dst = be.AppendUint16(dst, uint16(len(t.Columns)))
	dst = be.AppendUint32(dst, 8)
	dst = be.AppendUint64(dst, uint64(Micros(r.Time)))
	if r.Key != nil && len(*r.Key) > 0 {
		dst = append(dst, *r.Key...)
	} else {
		start := len(dst)
		var err error
		if dst, err = appendTags(dst, t, r); err != nil {
			return dst, err
		}
		if r.Key != nil {
			*r.Key = append((*r.Key)[:0], dst[start:]...)
		}
	}
	return appendFields(dst, t, r)
}

func appendTags(dst []byte, t *format.TableInfo, r *format.Row) ([]byte, error) {
	be := binary.BigEndian
	for i, c := range t.TagCols {
		v := r.Tags[i]
		if v == nil {
			dst = be.AppendUint32(dst, math.MaxUint32)
			continue
		}
		switch c.Type {
		case schema.Text:
			dst = be.AppendUint32(dst, uint32(len(v)))
			dst = append(dst, v...)
		case schema.Int4:
			dst = be.AppendUint32(dst, 4)
			dst = be.AppendUint32(dst, uint32(int32(r.TagInt[i])))
		case schema.Int8:
			dst = be.AppendUint32(dst, 8)
			dst = be.AppendUint64(dst, uint64(r.TagInt[i]))
		default:
			return dst, fmt.Errorf("%s.%s: tag type %v not supported", t.Name, c.Name, c.Type)
		}
	}
	return dst, nil
}

func appendFields(dst []byte, t *format.TableInfo, r *format.Row) ([]byte, error) {
	be := binary.BigEndian
	for i, c := range t.FieldCols {
		if r.Null&(1<<uint(i)) != 0 {
			dst = be.AppendUint32(dst, math.MaxUint32)
			continue
		}
		switch c.Type {
		case schema.Float8:
			dst = be.AppendUint32(dst, 8)
			dst = be.AppendUint64(dst, math.Float64bits(r.Float[i]))
		case schema.Float4:
			dst = be.AppendUint32(dst, 4)
			dst = be.AppendUint32(dst, math.Float32bits(float32(r.Float[i])))
		case schema.Int8:
			dst = be.AppendUint32(dst, 8)
			dst = be.AppendUint64(dst, uint64(r.Int[i]))
		case schema.Int4:
			dst = be.AppendUint32(dst, 4)
			dst = be.AppendUint32(dst, uint32(int32(r.Int[i])))
		default:
			return dst, fmt.Errorf("%s.%s: field type %v not supported", t.Name, c.Name, c.Type)
		}
	}
	return dst, nil
}

// Micros converts nanoseconds since the Unix epoch to COPY binary's
// microseconds since 2000-01-01, rounding toward negative infinity.
func Micros(ns int64) int64 {
	us := ns / 1000
	if ns%1000 < 0 {
		us--
	}
	return us - PostgresEpochMicros
}
