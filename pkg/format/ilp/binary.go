package ilp

import (
	"bytes"
	"encoding/binary"
	"math"
)

// QuestDB's line protocol version 2 (QuestDB 9.0 and later) lets a double
// field travel as its 8 bytes instead of decimal text: the field's '=' is
// followed by a second '=' (the binary format marker), the type code 16
// (double) and the IEEE 754 bits, little-endian. The server then does not
// parse decimals. Version 3 (9.2) writes doubles the same way.

// BinaryDoubleType is the type code of a binary double in QuestDB's line
// protocol version 2.
const BinaryDoubleType = 16

// BinaryDoubleLen is the length of a binary double after the field's '=':
// the marker '=', the type code and 8 bytes.
const BinaryDoubleLen = 10

// BinaryDouble returns the binary form of the float field value text
// ("=", type 16, the bits of strconv.ParseFloat(text, 64) little-endian)
// and true, when text is a plain decimal ([+-] digits, at most one '.', an
// optional exponent [eE][+-]digits) that parses to a finite float64 that
// is not an underflow to zero. For anything else (NaN, Infinity, an
// overflow, an underflow, an integer or boolean, any other syntax) false
// says the text is to be sent as it is: the server judges it as it would
// have.
func BinaryDouble(text []byte) (b [BinaryDoubleLen]byte, ok bool) {
	nonzero, ok := decimalText(text)
	if !ok {
		return b, false
	}
	f, ok := ParseFloat(text)
	if !ok || math.IsNaN(f) || f == 0 && nonzero {
		return b, false
	}
	b[0], b[1] = '=', BinaryDoubleType
	binary.LittleEndian.PutUint64(b[2:], math.Float64bits(f))
	return b, true
}

// decimalText reports whether b is a plain decimal number with an optional
// exponent, and whether any digit of its mantissa is not zero.
func decimalText(b []byte) (nonzero, ok bool) {
	i, n := 0, len(b)
	if i < n && (b[i] == '-' || b[i] == '+') {
		i++
	}
	digits := 0
	for ; i < n && b[i]-'0' <= 9; i++ {
		digits++
		nonzero = nonzero || b[i] != '0'
	}
	if i < n && b[i] == '.' {
		i++
		for ; i < n && b[i]-'0' <= 9; i++ {
			digits++
			nonzero = nonzero || b[i] != '0'
		}
	}
	if digits == 0 {
		return false, false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '-' || b[i] == '+') {
			i++
		}
		e := i
		for ; i < n && b[i]-'0' <= 9; i++ {
		}
		if i == e {
			return false, false
		}
	}
	return nonzero, i == n
}

// AppendBinaryDoubles appends line (one line without its '\n') to dst with
// every float field that BinaryDouble takes in binary form, and the
// rest byte for byte: the measurement, tags, keys, other values and the
// timestamp as written. A line it cannot follow (one Scan refuses) is
// appended as it is from that point on.
func AppendBinaryDoubles(dst, line []byte) []byte {
	i := fieldsStart(line)
	if i < 0 {
		return append(dst, line...)
	}
	last, n := 0, len(line)
	for i < n {
		// The key, up to an unescaped '='.
		for i < n && line[i] != '=' {
			if line[i] == '\\' {
				i++
			}
			i++
		}
		if i >= n {
			break
		}
		i++ // '='
		if i < n && line[i] == '"' {
			for i++; i < n && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < n && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
			}
			i++ // closing quote
		} else {
			s := i
			for i < n && line[i] != ',' && line[i] != ' ' {
				i++
			}
			if b, ok := BinaryDouble(line[s:i]); ok {
				dst = append(append(dst, line[last:s]...), b[:]...)
				last = i
			}
		}
		if i >= n || line[i] == ' ' {
			break
		}
		i++ // ','
	}
	return append(dst, line[last:]...)
}

// fieldsStart returns the index of the first field key of line: after the
// first space not escaped by a backslash (measurement and tags hold no
// quotes), and any more spaces; -1 when there is none.
func fieldsStart(line []byte) int {
	for i := 0; i < len(line); {
		j := bytes.IndexByte(line[i:], ' ')
		if j < 0 {
			return -1
		}
		i += j
		esc := 0
		for k := i - 1; k >= 0 && line[k] == '\\'; k-- {
			esc++
		}
		i++
		if esc%2 == 0 {
			for i < len(line) && line[i] == ' ' {
				i++
			}
			return i
		}
	}
	return -1
}
