package ilp

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/tsload/tsload/pkg/format"
)

// ValueKind is how a field's text value is written in a line.
type ValueKind uint8

// Field kinds of a RowLayout.
const (
	FloatValue  ValueKind = iota + 1 // a double: "1.5"
	IntValue                         // a signed integer: "15i"
	StringValue                      // a string: "\"text\""
)

func (k ValueKind) String() string {
	switch k {
	case FloatValue:
		return "float"
	case IntValue:
		return "integer"
	case StringValue:
		return "string"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// RowField is one field column of a RowLayout.
type RowField struct {
	Col  int // the value's index in the row
	Key  string
	Kind ValueKind
}

// RowTag is one tag column of a RowLayout.
type RowTag struct {
	Col int
	Key string
}

// RowLayout says how the text values of a tabular row (CSV) become one
// line: the measurement, the tag columns, the field columns with their
// kinds. The timestamp is given to AppendRow already parsed.
type RowLayout struct {
	Measurement string
	Tags        []RowTag
	Fields      []RowField
}

// RowEncoder writes tabular rows as lines, the keys escaped once. Tags are
// written sorted by key (as the line-protocol Encoder does), NULL (nil)
// tags and fields are left out.
type RowEncoder struct {
	measurement []byte
	tags        []RowTag
	tagKeys     [][]byte // ",key=" per tag, escaped
	fields      []RowField
	fieldKeys   [][]byte // "key=" per field, escaped
}

// NewRowEncoder checks l's names and returns its encoder.
func NewRowEncoder(l RowLayout) (*RowEncoder, error) {
	if err := checkKey(l.Measurement); err != nil || l.Measurement[0] == '#' {
		return nil, fmt.Errorf("measurement %q: a name that is empty, starts with # (a comment line), or holds a line end, NUL or invalid UTF-8", l.Measurement)
	}
	if len(l.Fields) == 0 {
		return nil, fmt.Errorf("%s: no field column", l.Measurement)
	}
	e := &RowEncoder{measurement: appendEscaped(nil, l.Measurement, measurementEscape)}
	e.tags = append([]RowTag(nil), l.Tags...)
	sort.SliceStable(e.tags, func(a, b int) bool { return e.tags[a].Key < e.tags[b].Key })
	for _, t := range e.tags {
		if err := checkKey(t.Key); err != nil {
			return nil, fmt.Errorf("%s: tag %w", l.Measurement, err)
		}
		e.tagKeys = append(e.tagKeys, append(appendEscaped([]byte{','}, t.Key, keyEscape), '='))
	}
	e.fields = append([]RowField(nil), l.Fields...)
	for _, f := range e.fields {
		if err := checkKey(f.Key); err != nil {
			return nil, fmt.Errorf("%s: field %w", l.Measurement, err)
		}
		e.fieldKeys = append(e.fieldKeys, append(appendEscaped(nil, f.Key, keyEscape), '='))
	}
	return e, nil
}

func checkKey(k string) error {
	switch {
	case k == "":
		return errors.New("with an empty name")
	case !utf8.ValidString(k):
		return fmt.Errorf("%q: invalid UTF-8", k)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] == 0x7f || k[i] == '\\' {
			return fmt.Errorf("%q: a control character or backslash in the name", k)
		}
	}
	return nil
}

// Escapes of line protocol: measurements escape commas and spaces; tag
// keys, tag values and field keys also equals signs.
var measurementEscape, keyEscape = func() (m, k [256]bool) {
	m[','], m[' '] = true, true
	k[','], k[' '], k['='] = true, true, true
	return
}()

func appendEscaped(dst []byte, s string, esc [256]bool) []byte {
	for i := 0; i < len(s); i++ {
		if esc[s[i]] {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return dst
}

// ValueError is a value AppendRow cannot write as its column's kind.
type ValueError struct {
	Key    string // the column
	Value  string // the value (shortened)
	Reason string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("column %s: %q %s", e.Key, e.Value, e.Reason)
}

func valueError(key string, v []byte, reason string) error {
	s := string(v)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return &ValueError{Key: key, Value: s, Reason: reason}
}

// ErrNoField is AppendRow's error for a row whose every field is NULL: a
// line of line protocol needs a field, so the row has no line.
var ErrNoField = errors.New("every field is NULL (a line needs one)")

// AppendRow appends the line of one row: vals holds the row's values by
// column (nil: NULL), ts the timestamp in the lines' unit. It returns dst
// unchanged and a *ValueError when a value does not fit its field's kind
// (a float that is not a number, NaN or infinite; an integer that is not
// one; a line end in a tag or a string), or ErrNoField when every field
// is NULL (a line needs one).
func (e *RowEncoder) AppendRow(dst []byte, vals [][]byte, ts int64) ([]byte, error) {
	start := len(dst)
	dst = append(dst, e.measurement...)
	for i, t := range e.tags {
		v := vals[t.Col]
		if len(v) == 0 {
			continue // NULL, or an empty value, which a tag cannot be
		}
		dst = append(dst, e.tagKeys[i]...)
		if asIs(v) {
			dst = append(dst, v...) // the common tag: printable ASCII, nothing to escape
			continue
		}
		if !utf8.Valid(v) {
			return dst[:start], valueError(t.Key, v, "is not valid UTF-8")
		}
		for _, c := range v {
			switch {
			case c < 0x20 || c == 0x7f:
				return dst[:start], valueError(t.Key, v, "holds a line end or another control character, which a tag cannot")
			case c == '\\':
				// Readers disagree on a backslash before another byte.
				return dst[:start], valueError(t.Key, v, "holds a backslash, which tsload does not write in a tag")
			case keyEscape[c]:
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
	}
	sep := byte(' ')
	for i, f := range e.fields {
		v := vals[f.Col]
		if v == nil {
			continue
		}
		mark := len(dst)
		dst = append(dst, sep)
		dst = append(dst, e.fieldKeys[i]...)
		switch f.Kind {
		case FloatValue:
			if plainDecimal(v, true) {
				dst = append(dst, v...) // the number as written: the server reads the same value
				break
			}
			x, err := strconv.ParseFloat(string(v), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				if len(v) == 0 {
					dst = dst[:mark] // an empty quoted value: no number, NULL
					continue
				}
				return dst[:start], valueError(f.Key, v, "is not a finite number (the column is a float)")
			}
			dst = format.AppendFloat(dst, x)
		case IntValue:
			if plainDecimal(v, false) {
				dst = append(append(dst, v...), 'i')
				break
			}
			x, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				if len(v) == 0 {
					dst = dst[:mark]
					continue
				}
				return dst[:start], valueError(f.Key, v, "is not an integer (the column is an integer)")
			}
			dst = append(strconv.AppendInt(dst, x, 10), 'i')
		case StringValue:
			if !utf8.Valid(v) {
				return dst[:start], valueError(f.Key, v, "is not valid UTF-8")
			}
			dst = append(dst, '"')
			for _, c := range v {
				switch {
				case c == '\n' || c == '\r' || c == 0:
					return dst[:start], valueError(f.Key, v, "holds a line end or NUL, which a line cannot carry")
				case c == '"' || c == '\\':
					dst = append(dst, '\\')
				}
				dst = append(dst, c)
			}
			dst = append(dst, '"')
		default:
			return dst[:start], fmt.Errorf("column %s: unknown kind %v", f.Key, f.Kind)
		}
		sep = ','
	}
	if sep == ' ' {
		return dst[:start], ErrNoField
	}
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, ts, 10)
	return append(dst, '\n'), nil
}

// plainDecimal reports whether v is a number line protocol reads as
// written: an optional minus, 1 to 15 digits without a leading zero (or a
// lone 0), and with frac a '.' and 1 to 15 more digits. Such a number is
// an exact int64 and a float's text equal to its value's; any other goes
// through strconv.
func plainDecimal(v []byte, frac bool) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	start := i
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	n := i - start
	if n == 0 || n > 15 || n > 1 && v[start] == '0' {
		return false
	}
	if i == len(v) {
		return true
	}
	if !frac || v[i] != '.' {
		return false
	}
	i++
	d := i
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	return i == len(v) && i-d >= 1 && i-d <= 15
}

// verbatim marks the bytes a tag value or a string field holds as they
// are: printable ASCII but for the backslash, the quote and the bytes a
// tag escapes.
var verbatim = func() (ok [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		ok[c] = c != '\\' && c != '"' && c != ',' && c != '='
	}
	return
}()

// asIs reports whether every byte of v is verbatim.
func asIs(v []byte) bool {
	for _, c := range v {
		if !verbatim[c] {
			return false
		}
	}
	return true
}
