package ilp

import (
	"bytes"
	"fmt"
)

// CheckTablePrefix returns why prefix cannot start a measurement (table)
// name in line protocol and SQL alike, or nil: it must be letters, digits,
// '_' or '-', none of which line protocol escapes or SQL must quote
// differently from the name it prefixes.
func CheckTablePrefix(prefix string) error {
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("table prefix %q: byte %d is %q (want letters, digits, '_' or '-')", prefix, i, c)
		}
	}
	return nil
}

// AppendPrefixed appends data, complete lines each ending in '\n', to dst
// with prefix inserted before the measurement of every record: a line whose
// first byte is not a blank, a tab, '#', '\r' or '\n' (a record cannot
// start with whitespace; a comment or blank line is copied as it is).
// prefix must pass CheckTablePrefix. It returns the extended slice.
func AppendPrefixed(dst, data []byte, prefix string) []byte {
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		switch data[0] {
		case ' ', '\t', '#', '\r', '\n':
		default:
			dst = append(dst, prefix...)
		}
		dst = append(dst, data[:n]...)
		data = data[n:]
	}
	return dst
}
