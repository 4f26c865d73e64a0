// Package ilp owns InfluxDB line protocol: its byte-level grammar (Scan and
// its kernels, the one check of a line every loader uses) and its encoder.
//
// # Reading
//
// Scan checks one line without decoding values (docs/formats.md says what
// it refuses). Most lines have a plain shape (no escapes, strings or
// comments: all that tsload writes) that ScanPlain checks 8 bytes at a
// time (SWAR) or 64 at a time (AVX2, scan_amd64.s); ScanCareful reads any
// line byte by byte and gives the reasons for refusals, with the same
// result on every line ScanPlain takes (FuzzILPFastPath). NextLine finds
// a line's end and checks it with the plain kernel (one pass with AVX2),
// for a reader that cuts a buffer of lines: the lines it declines go to
// Scan. IsRecord tells records from comment and blank lines without a
// scan; Unescape gives a measurement's name.
//
// # Writing
//
// The Encoder writes rows byte for byte as
// github.com/influxdata/line-protocol/v2's Encoder writes them: tags sorted
// by key, NULL tags and fields omitted, doubles in shortest round-trip form,
// integers with the i suffix, nanosecond timestamps (docs/formats.md, "ILP").
//
// The Encoder validates every key and value and formats floats with
// strconv, which alone costs more than the generator's whole per-row budget.
// So rows whose tag values are plain printable ASCII (everything the
// generator writes) take a fast path that appends the same bytes directly:
// the keys were validated and escaped once by the Encoder in New, tag values
// get the Encoder's escapes, floats go through format.AppendFloat (equal to
// strconv's 'g', -1 form, which the Encoder uses). Any other row is written
// by the Encoder itself in strict mode. Tests check that both paths give
// identical bytes and that every line decodes.
//
// # QuestDB's binary doubles
//
// AppendBinaryDoubles rewrites a line for QuestDB's line protocol version 2,
// each plain-decimal double field as its 8 bytes (binary.go).
package ilp

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

type table struct {
	format.TableInfo
	tagKeys   [][]byte
	tagOrder  []int // tag indexes sorted by key
	fieldKeys [][]byte
	isFloat   []bool
	// fast path: escaped measurement, ",key=" per tag, "key=" per field
	measurement []byte
	tagPrefix   [][]byte
	fieldPrefix [][]byte
	// fastest path (rows without NULLs of an all-float table whose field
	// prefixes fit): " key=" then ",key=" per field, padded to 32 bytes
	// so that one fixed-size move writes it; fieldsMax bounds the bytes
	// the fields and the timestamp take.
	floatRows   bool
	fieldPad    [][32]byte
	fieldPadLen []int
	fieldsMax   int
}

// Encoder writes line protocol. Its zero value is not usable; call New.
type Encoder struct {
	tables []table
	enc    lineprotocol.Encoder
	// the last timestamp written, as " <ns>\n"
	lastTime int64
	lastText []byte
	// Strict writes every row with the line-protocol Encoder (the
	// reference the fast path is tested against).
	Strict bool
}

var _ format.Encoder = (*Encoder)(nil)

// New returns an encoder for rows of the given tables. Measurement names and
// keys are checked here once; rows are then encoded in the Encoder's lax mode
// (the tag values the generator writes are plain ASCII without spaces, commas
// or equals signs; tests decode every line to keep it so).
func New(tables []*schema.Table) (*Encoder, error) {
	infos, err := format.Describe(tables)
	if err != nil {
		return nil, err
	}
	e := &Encoder{}
	var check lineprotocol.Encoder
	for _, ti := range infos {
		t := table{TableInfo: ti}
		check.StartLine(ti.Name)
		for i, c := range ti.TagCols {
			t.tagKeys = append(t.tagKeys, []byte(c.Name))
			t.tagOrder = append(t.tagOrder, i)
		}
		sort.Slice(t.tagOrder, func(a, b int) bool {
			return ti.TagCols[t.tagOrder[a]].Name < ti.TagCols[t.tagOrder[b]].Name
		})
		for _, i := range t.tagOrder {
			check.AddTag(ti.TagCols[i].Name, "x")
		}
		for _, c := range ti.FieldCols {
			t.fieldKeys = append(t.fieldKeys, []byte(c.Name))
			t.isFloat = append(t.isFloat, format.IsFloat(c.Type))
			check.AddField(c.Name, lineprotocol.IntValue(0))
		}
		check.EndLine(time.Unix(0, 0))
		if err := check.Err(); err != nil {
			return nil, fmt.Errorf("table %s: %w", ti.Name, err)
		}
		// escaped names, as the Encoder writes them
		var x lineprotocol.Encoder
		x.StartLine(ti.Name)
		x.AddField("f", lineprotocol.IntValue(0))
		x.EndLine(time.Time{})
		b := x.Bytes()
		t.measurement = append([]byte(nil), b[:len(b)-len(" f=0i\n")]...)
		for _, k := range t.tagKeys {
			x.Reset()
			x.StartLine("m")
			x.AddTag(string(k), "v")
			x.AddField("f", lineprotocol.IntValue(0))
			x.EndLine(time.Time{})
			b := x.Bytes()
			t.tagPrefix = append(t.tagPrefix, append([]byte(nil), b[1:len(b)-len("v f=0i\n")]...))
		}
		for _, k := range t.fieldKeys {
			x.Reset()
			x.StartLine("m")
			x.AddField(string(k), lineprotocol.IntValue(0))
			x.EndLine(time.Time{})
			b := x.Bytes()
			t.fieldPrefix = append(t.fieldPrefix, append([]byte(nil), b[2:len(b)-len("0i\n")]...))
		}
		if err := x.Err(); err != nil {
			return nil, fmt.Errorf("table %s: %w", ti.Name, err)
		}
		t.floatRows = true
		t.fieldsMax = 64 // the timestamp, and the slack of the padded writes
		for i, p := range t.fieldPrefix {
			sep := byte(',')
			if i == 0 {
				sep = ' '
			}
			var pad [32]byte
			n := copy(pad[1:], p) + 1
			pad[0] = sep
			t.fieldPad = append(t.fieldPad, pad)
			t.fieldPadLen = append(t.fieldPadLen, n)
			t.fieldsMax += n + maxFloatLen
			t.floatRows = t.floatRows && t.isFloat[i] && len(p) < len(pad)
		}
		e.tables = append(e.tables, t)
	}
	return e, nil
}

// tagValEscape marks the bytes a tag value escapes with a backslash (as the
// Encoder does) and plainTag the bytes the fast path accepts.
var tagValEscape, plainTag = func() (esc, ok [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		ok[c] = c != '\\'
	}
	for _, c := range ", =" {
		esc[c], ok[c] = true, true
	}
	return
}()

// AppendRow appends one line. A row whose fields are all NULL, or a NaN or
// infinite float, is an error (line protocol cannot carry either).
func (e *Encoder) AppendRow(dst []byte, r *format.Row) ([]byte, error) {
	if e.Strict {
		return e.appendStrict(dst, r)
	}
	t := &e.tables[r.Table]
	start := len(dst)
	if r.Key != nil && len(*r.Key) > 0 {
		dst = append(dst, *r.Key...)
	} else {
		var ok bool
		if dst, ok = e.appendKey(dst, t, r); !ok {
			return e.appendStrict(dst[:start], r)
		}
		if r.Key != nil {
			*r.Key = append((*r.Key)[:0], dst[start:]...)
		}
	}
	if r.Null == 0 && t.floatRows {
		return e.appendFloatFields(dst, start, t, r)
	}
	return e.appendFields(dst, start, t, r)
}

// maxFloatLen is the longest float strconv writes ('g', -1):
// "-1.2345678901234567e-308".
const maxFloatLen = 24

// appendFloatFields is appendFields for a row without NULLs of a table of
// floats (t.floatRows): it makes room once, then writes each padded field
// prefix with one move and each value with format.PutCents in place when
// it has at most two decimals.
func (e *Encoder) appendFloatFields(dst []byte, start int, t *table, r *format.Row) ([]byte, error) {
	if cap(dst)-len(dst) < t.fieldsMax {
		dst = slices.Grow(dst, t.fieldsMax)
	}
	vals := r.Float[:len(t.fieldPad)]
	lens := t.fieldPadLen[:len(t.fieldPad)]
	for i := range t.fieldPad {
		l := len(dst)
		*(*[32]byte)(dst[l : l+32]) = t.fieldPad[i]
		l += lens[i]
		if n := format.PutCents((*[16]byte)(dst[l:l+16]), vals[i]); n > 0 {
			dst = dst[:l+n]
			continue
		}
		v := vals[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return dst[:start], fmt.Errorf("%s.%s: cannot encode %v in line protocol", t.Name, t.fieldKeys[i], v)
		}
		dst = format.AppendFloat(dst[:l], v) // at most maxFloatLen bytes: no reallocation
	}
	return e.appendTime(dst, r.Time), nil
}

// appendKey appends the measurement and tags; ok is false when a tag value
// needs the Encoder's strict path.
func (e *Encoder) appendKey(dst []byte, t *table, r *format.Row) ([]byte, bool) {
	dst = append(dst, t.measurement...)
	for _, i := range t.tagOrder {
		v := r.Tags[i]
		if v == nil {
			continue
		}
		if len(v) == 0 {
			return dst, false
		}
		dst = append(dst, t.tagPrefix[i]...)
		escapes := false
		for _, c := range v {
			if !plainTag[c] {
				return dst, false
			}
			escapes = escapes || tagValEscape[c]
		}
		if !escapes {
			dst = append(dst, v...)
			continue
		}
		for _, c := range v {
			if tagValEscape[c] {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
	}
	return dst, true
}

// appendFields appends the fields and the timestamp of a line that starts
// at dst[start].
func (e *Encoder) appendFields(dst []byte, start int, t *table, r *format.Row) ([]byte, error) {
	sep := byte(' ')
	for i := range t.fieldPrefix {
		if r.Null&(1<<uint(i)) != 0 {
			continue
		}
		dst = append(dst, sep)
		sep = ','
		dst = append(dst, t.fieldPrefix[i]...)
		if t.isFloat[i] {
			v := r.Float[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return dst[:start], fmt.Errorf("%s.%s: cannot encode %v in line protocol", t.Name, t.fieldKeys[i], v)
			}
			dst = format.AppendFloat(dst, v)
		} else {
			dst = strconv.AppendInt(dst, r.Int[i], 10)
			dst = append(dst, 'i')
		}
	}
	if sep == ' ' {
		return dst[:start], fmt.Errorf("%s: row at %d has no non-NULL field", t.Name, r.Time)
	}
	return e.appendTime(dst, r.Time), nil
}

// appendTime appends " <ns>\n", formatted once per distinct timestamp.
func (e *Encoder) appendTime(dst []byte, ns int64) []byte {
	if ns != e.lastTime || len(e.lastText) == 0 {
		e.lastTime = ns
		e.lastText = append(strconv.AppendInt(append(e.lastText[:0], ' '), ns, 10), '\n')
	}
	return append(dst, e.lastText...)
}

// StreamHeader writes nothing: line protocol has no header.
func (e *Encoder) StreamHeader(dst []byte) []byte { return dst }

// ChunkHeader writes nothing: every line names its measurement.
func (e *Encoder) ChunkHeader(dst []byte, _ int, _ int) []byte { return dst }

// StreamTrailer writes nothing.
func (e *Encoder) StreamTrailer(dst []byte) []byte { return dst }

// appendStrict writes the row with the line-protocol Encoder.
func (e *Encoder) appendStrict(dst []byte, r *format.Row) ([]byte, error) {
	t := &e.tables[r.Table]
	enc := &e.enc
	enc.SetBuffer(dst)
	enc.StartLineRaw(t.NameBytes)
	for _, i := range t.tagOrder {
		if v := r.Tags[i]; v != nil {
			enc.AddTagRaw(t.tagKeys[i], v)
		}
	}
	n := 0
	for i, key := range t.fieldKeys {
		if r.Null&(1<<uint(i)) != 0 {
			continue
		}
		if t.isFloat[i] {
			v, ok := lineprotocol.FloatValue(r.Float[i])
			if !ok {
				return dst, fmt.Errorf("%s.%s: cannot encode %v in line protocol", t.Name, key, r.Float[i])
			}
			enc.AddFieldRaw(key, v)
		} else {
			enc.AddFieldRaw(key, lineprotocol.IntValue(r.Int[i]))
		}
		n++
	}
	if n == 0 {
		return dst, fmt.Errorf("%s: row at %d has no non-NULL field", t.Name, r.Time)
	}
	enc.EndLine(time.Unix(0, r.Time))
	if err := enc.Err(); err != nil {
		return dst, fmt.Errorf("%s: %w", t.Name, err)
	}
	return enc.Bytes(), nil
}
