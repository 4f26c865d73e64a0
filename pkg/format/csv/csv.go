// Package csv owns the CSV grammar: it encodes rows as RFC 4180 CSV that
// PostgreSQL's COPY ... (FORMAT csv, HEADER true) accepts unchanged, and as
// the tsload multi-table CSV stream (#tsload-csv v1, #table and #data
// directives), and reads records with the one Scanner the splitter and the
// targets share; docs/formats.md describes both formats byte by byte.
//
// Timestamps are RFC 3339 in UTC ("2016-01-01T00:00:10Z", fractional seconds
// only when non-zero, at most 6 digits); NULL is an empty unquoted field;
// floats are Go's shortest round-trip form (float4 columns at 32-bit
// precision); integers are decimal.
package csv

import (
	"strconv"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// Magic is the first line of a multi-table stream, without its '\n'.
const Magic = "#tsload-csv v1"

// Encoder writes CSV. Call New.
type Encoder struct {
	tables []format.TableInfo
	multi  bool
	// the last timestamp formatted, and its text
	lastTime int64
	lastText []byte
}

var _ format.Encoder = (*Encoder)(nil)

// New returns an encoder. With multi false there must be exactly one table
// and the stream is a standard CSV file with a header; with multi true it is
// the multi-table stream.
func New(tables []*schema.Table, multi bool) (*Encoder, error) {
	infos, err := format.Describe(tables)
	if err != nil {
		return nil, err
	}
	if !multi && len(infos) != 1 {
		return nil, errSingle(len(infos))
	}
	return &Encoder{tables: infos, multi: multi, lastTime: -1 << 63}, nil
}

type errSingle int

func (n errSingle) Error() string {
	return "a single-table CSV stream needs exactly one table, got " + strconv.Itoa(int(n))
}

// StreamHeader appends the header record (single table) or the #tsload-csv
// and #table lines (multi-table).
func (e *Encoder) StreamHeader(dst []byte) []byte {
	if !e.multi {
		for i, c := range e.tables[0].Columns {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendField(dst, []byte(c.Name))
		}
		return append(dst, '\n')
	}
	dst = append(dst, Magic...)
	dst = append(dst, '\n')
	for _, t := range e.tables {
		dst = append(dst, "#table "...)
		dst = append(dst, t.Name...)
		dst = append(dst, ' ')
		for i, c := range t.Columns {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, c.Name...)
			dst = append(dst, ':')
			dst = append(dst, c.Type.String()...)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// ChunkHeader appends "#data <table>\n" in a multi-table stream.
func (e *Encoder) ChunkHeader(dst []byte, table int, _ int) []byte {
	if !e.multi {
		return dst
	}
	dst = append(dst, "#data "...)
	dst = append(dst, e.tables[table].NameBytes...)
	return append(dst, '\n')
}

// StreamTrailer writes nothing.
func (e *Encoder) StreamTrailer(dst []byte) []byte { return dst }

// AppendRow appends one record.
func (e *Encoder) AppendRow(dst []byte, r *format.Row) ([]byte, error) {
	t := &e.tables[r.Table]
	if r.Time != e.lastTime {
		e.lastTime = r.Time
		e.lastText = AppendTime(e.lastText[:0], r.Time)
	}
	dst = append(dst, e.lastText...)
	if r.Key != nil && len(*r.Key) > 0 {
		dst = append(dst, *r.Key...)
	} else {
		start := len(dst)
		for i, c := range t.TagCols {
			dst = append(dst, ',')
			v := r.Tags[i]
			if v == nil {
				continue
			}
			if c.Type == schema.Text {
				dst = AppendField(dst, v)
			} else {
				dst = strconv.AppendInt(dst, r.TagInt[i], 10)
			}
		}
		if r.Key != nil {
			*r.Key = append((*r.Key)[:0], dst[start:]...)
		}
	}
	for i, c := range t.FieldCols {
		dst = append(dst, ',')
		if r.Null&(1<<uint(i)) != 0 {
			continue
		}
		switch c.Type {
		case schema.Float8:
			dst = format.AppendFloat(dst, r.Float[i])
		case schema.Float4:
			dst = strconv.AppendFloat(dst, float64(float32(r.Float[i])), 'g', -1, 32)
		default:
			dst = strconv.AppendInt(dst, r.Int[i], 10)
		}
	}
	return append(dst, '\n'), nil
}

// AppendField appends v as one CSV field, quoted when it contains a comma,
// a double quote, CR or LF, or is empty (so that it is not read as NULL).
func AppendField(dst, v []byte) []byte {
	quote := len(v) == 0
	for _, c := range v {
		if c == ',' || c == '"' || c == '\r' || c == '\n' {
			quote = true
			break
		}
	}
	if !quote {
		return append(dst, v...)
	}
	dst = append(dst, '"')
	for _, c := range v {
		if c == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, c)
	}
	return append(dst, '"')
}

// AppendTime appends ns (nanoseconds since the Unix epoch) as RFC 3339 in
// UTC with at most 6 fractional digits, omitted when zero (sub-microsecond
// digits are truncated).
func AppendTime(dst []byte, ns int64) []byte {
	return time.Unix(0, ns).UTC().AppendFormat(dst, "2006-01-02T15:04:05.999999Z07:00")
}
