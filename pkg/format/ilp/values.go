package ilp

import (
	"bytes"
	"math"
	"strconv"
)

// Decoding the values of a line that Scan accepted, for content
// fingerprints (package fingerprint): the loader reads every field once,
// on the worker, in the pass that checks the line.

// Kind is the kind of a field value.
type Kind uint8

// Value kinds.
const (
	KindFloat  Kind = 1
	KindInt    Kind = 2 // 123i
	KindUint   Kind = 3 // 123u
	KindString Kind = 4
	KindBool   Kind = 5
)

// Value is one decoded field.
type Value struct {
	Kind Kind
	// F is a float's value, unless Dec: a plain decimal is given exactly,
	// as -1^Neg * Mant / 10^Exp (at most 15 significant digits), and
	// Float computes F from it (one correctly rounded division).
	F    float64
	Dec  bool
	Neg  bool
	Exp  uint8
	Mant uint64
	I    int64
	U    uint64
	B    bool
	// Len is a string's length in bytes once unescaped.
	Len int
}

// Fields walks the fields of line, a line Scan accepted with r, calling
// fn with each raw key (escaped as written: see Unescape) and its value;
// it returns the timestamp as written (nil when the line has none) and
// the first value that does not decode (a number out of range: the
// scanner does not decode values). plain says the line has the plain
// shape (ScanPlain accepted it: no escapes, no quotes), so keys end at
// the first '='.
func Fields(line []byte, r Line, plain bool, fn func(key []byte, v Value)) (ts []byte, err error) {
	i := r.KeyEnd + 1
	n := len(line)
	for i < n && line[i] == ' ' { // more spaces between the sections
		i++
	}
	for i < n {
		// The key: up to an unescaped '='.
		k := i
		if plain {
			if j := bytes.IndexByte(line[i:], '='); j >= 0 {
				i += j
			} else {
				i = n
			}
		}
		for i < n && line[i] != '=' {
			if line[i] == '\\' {
				i++
			}
			i++
		}
		key := line[k:min(i, n)]
		i++ // '='
		var v Value
		if i < n && line[i] == '"' {
			i++
			s, esc := i, 0
			for i < n && line[i] != '"' {
				if line[i] == '\\' && i+1 < n && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
					esc++
				}
				i++
			}
			v = Value{Kind: KindString, Len: i - s - esc}
			i++ // closing quote
		} else if m, e, neg, end, ok := plainNumber(line, i); ok {
			v, i = Value{Kind: KindFloat, Dec: true, Neg: neg, Exp: e, Mant: m}, end
		} else {
			s := i
			for i < n && line[i] != ',' && line[i] != ' ' {
				i++
			}
			if v, ok = ParseValue(line[s:i]); !ok {
				return nil, &strconv.NumError{Func: "field " + string(key), Num: string(line[s:i]), Err: strconv.ErrRange}
			}
		}
		fn(key, v)
		if i >= n || line[i] == ' ' {
			break
		}
		i++ // ','
	}
	if i < n {
		ts = bytes.TrimSpace(line[i:])
		if len(ts) == 0 {
			ts = nil
		}
	}
	return ts, nil
}

// ParseValue decodes an unquoted field value: a float, an integer with
// its i or u suffix, or a boolean.
func ParseValue(b []byte) (Value, bool) {
	if len(b) == 0 {
		return Value{}, false
	}
	switch last := b[len(b)-1]; {
	case last == 'i':
		v, ok := ParseInt(b[:len(b)-1])
		return Value{Kind: KindInt, I: v}, ok
	case last == 'u':
		v, err := strconv.ParseUint(string(b[:len(b)-1]), 10, 64)
		return Value{Kind: KindUint, U: v}, err == nil
	}
	switch c := b[0]; {
	case c == 't' || c == 'T':
		return Value{Kind: KindBool, B: true}, true
	case c == 'f' || c == 'F':
		return Value{Kind: KindBool}, true
	}
	f, ok := ParseFloat(b)
	return Value{Kind: KindFloat, F: f}, ok
}

// ParseInt decodes a decimal int64 (an optional sign, digits).
func ParseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	d := b
	if neg || len(b) > 0 && b[0] == '+' {
		d = b[1:]
	}
	if len(d) == 0 {
		return 0, false
	}
	for len(d) > 1 && d[0] == '0' { // leading zeros are allowed
		d = d[1:]
	}
	if len(d) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v-1) - 1, true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseTimestamp decodes a line's timestamp (in the input's precision).
func ParseTimestamp(b []byte) (int64, bool) { return ParseInt(b) }

// Float is the value of a float field.
func (v Value) Float() float64 {
	if !v.Dec {
		return v.F
	}
	f := float64(v.Mant) / pow10[v.Exp]
	if v.Neg {
		f = -f
	}
	return f
}

// plainNumber decodes the float at line[i:] when it is a plain decimal
// (an optional '-', digits, at most one '.', at most 15 significant
// digits) ending the field (at a ',', a ' ' or the line's end), in the one
// pass that finds its end: its digits as an integer and the number of
// them after the point (ParseFloat's fast path divides them).
func plainNumber(line []byte, i int) (mant uint64, exp uint8, neg bool, end int, ok bool) {
	n := len(line)
	neg = i < n && line[i] == '-'
	if neg {
		i++
	}
	start := i
	var m uint64
	digits, frac := 0, -1
	for ; i < n; i++ {
		c := line[i]
		if c-'0' <= 9 {
			m = m*10 + uint64(c-'0')
			if m != 0 {
				digits++
			}
			continue
		}
		if c == '.' && frac < 0 {
			frac = i
			continue
		}
		if c != ',' && c != ' ' {
			return 0, 0, false, 0, false
		}
		break
	}
	if i == start || digits > 15 || (frac >= 0 && i-start == 1) {
		return 0, 0, false, 0, false
	}
	e := 0
	if frac >= 0 {
		e = i - frac - 1
	}
	if e >= len(pow10) {
		return 0, 0, false, 0, false
	}
	return m, uint8(e), neg, i, true
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseFloat decodes a float value as strconv.ParseFloat does (correctly
// rounded), taking plain decimals ("-12.375", "42") the fast way: with at
// most 15 significant digits the digits and the power of ten are both
// exact float64s, so one division rounds correctly (Clinger's fast path).
// Anything else (exponents, more digits) goes to strconv.
func ParseFloat(b []byte) (float64, bool) {
	i, n := 0, len(b)
	neg := n > 0 && b[0] == '-'
	if neg || n > 0 && b[0] == '+' {
		i++
	}
	var m uint64
	digits, frac := 0, -1
	for ; i < n; i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			m = m*10 + uint64(c-'0')
			if m != 0 {
				digits++
			}
			continue
		}
		if c == '.' && frac < 0 {
			frac = i
			continue
		}
		return slowFloat(b)
	}
	if digits > 15 || n == 0 || (frac >= 0 && n == frac+1 && frac == boolToInt(neg)) {
		return slowFloat(b)
	}
	exp := 0
	if frac >= 0 {
		exp = n - frac - 1
	}
	if exp >= len(pow10) || (frac < 0 && i == boolToInt(neg || b[0] == '+')) {
		return slowFloat(b)
	}
	f := float64(m) / pow10[exp]
	if neg {
		f = -f
	}
	return f, true
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func slowFloat(b []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

// UnescapeKey is a tag or field key as written without its escapes, as
// line protocol reads it: a backslash escapes a comma, an equals sign or
// a space, and stays before any other byte.
func UnescapeKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) && (raw[i+1] == ',' || raw[i+1] == '=' || raw[i+1] == ' ') {
			i++
		}
		out = append(out, raw[i])
	}
	return out
}

// Timestamp returns the timestamp of line as written (nil when it has
// none), a line Scan accepted with r, without decoding its fields (what
// Fields returns as ts). plain: ScanPlain accepted it (no quotes, no
// escapes).
func Timestamp(line []byte, r Line, plain bool) []byte {
	i, n := r.KeyEnd+1, len(line)
	for i < n && line[i] == ' ' {
		i++
	}
	if plain {
		if j := bytes.IndexByte(line[i:], ' '); j >= 0 {
			i += j
		} else {
			i = n
		}
	}
	for i < n && line[i] != ' ' { // a field: key, '=', value
		for i < n && line[i] != '=' {
			if line[i] == '\\' {
				i++
			}
			i++
		}
		i++ // '='
		if i < n && line[i] == '"' {
			for i++; i < n && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
			i++ // the closing '"'
		}
		for i < n && line[i] != ',' && line[i] != ' ' {
			i++
		}
		if i < n && line[i] == ',' {
			i++
		}
	}
	if ts := bytes.TrimSpace(line[min(i, n):]); len(ts) > 0 { // as Fields
		return ts
	}
	return nil
}
