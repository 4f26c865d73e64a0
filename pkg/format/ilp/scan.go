package ilp

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Line is what a scan found in one line (without its line ending).
type Line struct {
	Row     bool   // a data line (false: a comment or blank line)
	NameEnd int    // end of the measurement name (escaped, as written)
	KeyEnd  int    // end of the series key (measurement and tags)
	Fields  int    // number of fields
	Reason  string // why the line is malformed, or ""
}

// IsRecord reports whether a line (without its '\n'; the CR of a CRLF may
// be there) is a record, valid or not, rather than a blank or comment
// line: Scan's rule, without the scan.
func IsRecord(line []byte) bool {
	if len(line) > 0 && recordStart[line[0]] {
		return true
	}
	return isRecordSlow(line)
}

// recordStart marks the first bytes that make a line a record at once.
var recordStart = func() (t [256]bool) {
	for i := range t {
		t[i] = i != ' ' && i != '\t' && i != '#' && i != '\r' && i != '\n'
	}
	return
}()

func isRecordSlow(line []byte) bool {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	for _, c := range line {
		if c != ' ' && c != '\t' {
			return c != '#'
		}
	}
	return false
}

// Unescape is a measurement name (or any key) as written, raw[:NameEnd],
// without its backslash escapes.
func Unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		out = append(out, raw[i])
	}
	return string(out)
}

// NextLine finds the line at the start of b and checks it with the plain
// kernel: n is the index of its '\n' (-1: b holds none), and plain reports
// that the line has the plain shape, r then being Scan's result for it. A
// line it declines is Scan's to check (or ScanCareful's: the plain kernel
// declined it already). With AVX2 the end and the check are one pass
// (scan_amd64.go); otherwise it is nextLineSWAR.
//
// func NextLine(b []byte) (r Line, n int, plain bool)

// nextLineSWAR is NextLine with ScanPlain's word loop.
func nextLineSWAR(b []byte) (r Line, n int, plain bool) {
	if n = bytes.IndexByte(b, '\n'); n < 0 {
		return r, -1, false
	}
	r, plain = ScanPlain(b[:n])
	return r, n, plain
}

// Byte classes of the ILP scanner: stop[c] is true for the bytes a state
// must look at; every other byte is skipped in a tight loop. Non-ASCII
// bytes and NUL stop every state (for the UTF-8 and NUL checks).
var (
	stopName   = stopTable(",\\ ")  // measurement
	stopTag    = stopTable(",\\ =") // tag keys and values
	stopKey    = stopTable(",\\ =") // field keys
	stopValue  = stopTable(", ")    // unquoted field values
	stopString = stopTable("\"\\")  // string field values
)

func stopTable(special string) *[256]bool {
	var t [256]bool
	for i := 0x80; i < 256; i++ {
		t[i] = true
	}
	t[0] = true
	for i := 0; i < len(special); i++ {
		t[special[i]] = true
	}
	return &t
}

// skip returns the index of the first byte at or after i that stops.
func skip(line []byte, i int, stop *[256]bool) int {
	for i < len(line) && !stop[line[i]] {
		i++
	}
	return i
}

// Scan validates one line (without its line ending) cheaply: a
// measurement, well-formed tags, at least one field with a key and a value
// (string values may hold escaped quotes, commas and spaces), an optional
// integer timestamp within int64, no NUL byte and valid UTF-8. Values are
// not decoded.
//
// Most lines (all that tsload writes) are taken by ScanPlain; the lines
// it declines go to ScanCareful, which gives the same result for every
// line the fast path accepts (FuzzILPFastPath checks it) and the reasons
// for refusals.
func Scan(line []byte) Line {
	if r, ok := ScanPlain(line); ok {
		return r
	}
	return ScanCareful(line)
}

// plainFirst marks the bytes a line may start with on the fast path (not
// a blank, a comment, a separator or an equals sign).
var plainFirst = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = c != '#' && c != ',' && c != '=' && c != '\\' && c != '"'
	}
	return
}()

// SWAR constants: a byte's worth of each pattern in every byte of a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7f7f7f7f7f7f7f7f
)

// ScanPlain scans the common line 8 bytes at a time (SWAR) and reports
// ok only for a line with the plain shape
//
//	measurement[,k=v]... k=v[,k=v]...[ timestamp]
//
// where no byte is a control character, non-ASCII, a backslash or a quote,
// single spaces separate the sections, and every tag and field holds
// exactly one '=' with a non-empty key and value. Separators (',' and ' ')
// and '=' must then alternate, starting with a separator: the inclusive
// prefix XOR of the positions of both kinds is 1 at every separator and 0
// at every '='; six shifts compute it for a word. Anything else (escapes,
// strings, values holding '=', comments, errors) is left to the careful
// scanner: ok false means only "not decided here".
func ScanPlain(line []byte) (r Line, ok bool) {
	n := len(line)
	if n == 0 || !plainFirst[line[0]] {
		return r, false
	}
	if c := line[n-1]; c == ',' || c == ' ' || c == '=' {
		return r, false
	}
	if useAVX2 {
		plain, parity, spaces, lastSp, firstSp, nameEnd, fields := plainAVX2(line)
		if !plain || !plainSections(line, parity, spaces, lastSp) {
			return r, false
		}
		return Line{Row: true, NameEnd: nameEnd, KeyEnd: firstSp, Fields: fields}, true
	}
	plain, parity, spaces, lastSp := plainSWAR(line)
	if !plain || !plainSections(line, parity, spaces, lastSp) {
		return r, false
	}
	firstSp := lastSp
	end := n // end of the field section
	if spaces == 2 {
		firstSp = bytes.IndexByte(line, ' ')
		end = lastSp
	}
	r.Row = true
	r.KeyEnd = firstSp
	r.NameEnd = firstSp
	if i := bytes.IndexByte(line[:firstSp], ','); i >= 0 {
		r.NameEnd = i
	}
	r.Fields = bytes.Count(line[firstSp+1:end], comma) + 1
	return r, true
}

// plainSWAR checks the plain shape 8 bytes at a time: plain is false when
// a byte is a control character, non-ASCII, a backslash or a quote, or the
// separators and '=' do not alternate; parity is all ones after an odd
// number of them. It counts the spaces (up to 3: more do not matter) and
// finds the last one.
func plainSWAR(line []byte) (plain bool, parity uint64, spaces, lastSp int) {
	// acc collects, in bit 7 of its bytes, the bytes that are not plain
	// ASCII (a byte < 0x20 or >= 0x80 sets bit 7 of x - 0x20.. or of x; a
	// borrow only ever follows a byte that is itself < 0x20), backslashes
	// and quotes (a zero byte of x ^ pattern, whose -1 sets bit 7; a
	// borrow from a lower byte needs a zero there, itself a hit), and the
	// broken alternations.
	var acc, prev uint64
	var pad [8]byte
	for b := line; len(b) > 0; {
		var x uint64
		if len(b) >= 8 {
			x = binary.LittleEndian.Uint64(b)
			b = b[8:]
		} else {
			pad = [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'} // neutral
			copy(pad[:], b)
			x = binary.LittleEndian.Uint64(pad[:])
			b = nil
		}
		// Exact per-byte matches (when every byte is ASCII, adding 0x7f
		// to a byte never carries into the next): bit 7 of a byte is
		// clear where the byte equals the pattern.
		sp := (x ^ 0x2020202020202020) + lows
		eq := highs &^ ((x ^ 0x3d3d3d3d3d3d3d3d) + lows)
		sep := highs &^ (sp & ((x ^ 0x2c2c2c2c2c2c2c2c) + lows))
		m := sep | eq
		p := m ^ m<<8
		p ^= p << 16
		p ^= p << 32
		p ^= parity
		// A separator at an even rank (p clear, so p^sep set), an '='
		// at an odd one (p set), or two of them side by side (an empty
		// key or value).
		acc |= (x - 0x2020202020202020) | x | m&(p^sep|m<<8|prev) |
			((x ^ 0x5c5c5c5c5c5c5c5c) - ones) | ((x ^ 0x2222222222222222) - ones)
		prev = m >> 56
		parity = uint64(int64(p) >> 63)
	}
	if acc&highs != 0 {
		return false, 0, 0, 0
	}
	first := bytes.IndexByte(line, ' ')
	if first < 0 {
		return true, parity, 0, -1
	}
	lastSp = bytes.LastIndexByte(line, ' ')
	switch {
	case lastSp == first:
		spaces = 1
	case bytes.IndexByte(line[first+1:lastSp], ' ') < 0:
		spaces = 2
	default:
		spaces = 3
	}
	return true, parity, spaces, lastSp
}

var comma = []byte{','}

// plainSections checks, for a line whose bytes are plain and alternate,
// that one space ends the key and a second one, if any, starts a plain
// timestamp: one space and a last '=' (parity 0), or two and a timestamp.
func plainSections(line []byte, parity uint64, spaces, lastSp int) bool {
	switch spaces {
	case 1:
		return parity == 0
	case 2:
		return plainTimestamp(line[lastSp+1:])
	}
	return false
}

// plainTimestamp reports whether ts is an optional '-' and 1 to 19 digits
// within int64: a timestamp timestampReason accepts, quickly.
func plainTimestamp(ts []byte) bool {
	if len(ts) > 0 && ts[0] == '-' {
		ts = ts[1:]
	}
	n := len(ts)
	if n == 0 || n > 19 {
		return false
	}
	// Eight digits at a time: a byte below '0' sets bit 7 of x - 0x30..
	// (a borrow only follows such a byte), one above '9' of x + 0x46..,
	// a non-ASCII byte of x.
	var acc uint64
	d := ts
	for ; len(d) >= 8; d = d[8:] {
		x := binary.LittleEndian.Uint64(d)
		acc |= (x - 0x3030303030303030) | (x + 0x4646464646464646) | x
	}
	for _, c := range d {
		if c-'0' > 9 {
			return false
		}
	}
	return acc&highs == 0 && (n < 19 || ts[0] < '9' || string(ts) <= "9223372036854775807")
}

// ScanCareful is Scan byte by byte, for any line.
func ScanCareful(line []byte) Line {
	var r Line
	n := len(line)
	i := 0
	for i < n && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == n || line[i] == '#' {
		return r // blank or comment
	}
	if i > 0 {
		r.Reason = "line starts with whitespace"
		return r
	}
	r.Row = true
	high := false // non-ASCII seen: check UTF-8
	// Measurement.
	for {
		i = skip(line, i, stopName)
		if i >= n {
			break
		}
		c := line[i]
		if c == ',' || c == ' ' {
			break
		}
		switch {
		case c == '\\':
			i += 2
		case c == 0:
			r.Reason = "NUL byte in measurement"
			return r
		default:
			high = true
			i++
		}
	}
	if i > n {
		i = n
	}
	r.NameEnd = i
	if i == 0 {
		r.Reason = "missing measurement name"
		return r
	}
	// Tags.
	if i < n && line[i] == ',' {
		i++
		keyStart, eq := i, -1
		for {
			i = skip(line, i, stopTag)
			if i >= n {
				r.Reason = "missing field section"
				return r
			}
			c := line[i]
			switch {
			case c == '\\':
				i += 2
			case c == ',' || c == ' ':
				if eq < 0 || eq == keyStart || eq == i-1 {
					r.Reason = "tag without key=value"
					return r
				}
				if c == ' ' {
					goto tagsDone
				}
				i++
				keyStart, eq = i, -1
			case c == '=':
				if eq < 0 {
					eq = i
				}
				i++
			case c == 0:
				r.Reason = "NUL byte in tag"
				return r
			default:
				high = true
				i++
			}
		}
	}
tagsDone:
	r.KeyEnd = i
	if high && !utf8.Valid(line[:i]) {
		r.Reason = "invalid UTF-8 in measurement or tags"
		return r
	}
	// Fields.
	for i < n && line[i] == ' ' {
		i++
	}
	if i >= n {
		r.Reason = "missing field section"
		return r
	}
	for {
		// Key.
		keyStart := i
	key:
		for {
			i = skip(line, i, stopKey)
			if i >= n {
				break
			}
			switch c := line[i]; {
			case c == '\\':
				i += 2
			case c == 0:
				r.Reason = "NUL byte in field key"
				return r
			case c >= 0x80:
				high = true
				i++
			default:
				break key
			}
		}
		if i >= n || line[i] != '=' || i == keyStart {
			r.Reason = "field without key=value"
			return r
		}
		i++
		// Value.
		if i < n && line[i] == '"' {
			i++
			for {
				i = skip(line, i, stopString)
				if i >= n {
					r.Reason = "unterminated string field value"
					return r
				}
				c := line[i]
				if c == '"' {
					i++
					break
				}
				switch {
				case c == '\\':
					i += 2
				case c == 0:
					r.Reason = "NUL byte in string field value"
					return r
				default:
					high = true
					i++
				}
			}
		} else {
			valStart := i
			for {
				i = skip(line, i, stopValue)
				if i >= n || line[i] == ',' || line[i] == ' ' {
					break
				}
				if line[i] == 0 {
					r.Reason = "NUL byte in field value"
					return r
				}
				high = true
				i++
			}
			if i == valStart {
				r.Reason = "field without value"
				return r
			}
		}
		r.Fields++
		if i >= n || line[i] == ' ' {
			break
		}
		if line[i] != ',' {
			r.Reason = "unexpected character after field value"
			return r
		}
		i++
	}
	if high && !utf8.Valid(line) {
		r.Reason = "invalid UTF-8"
		return r
	}
	r.Reason = timestampReason(line, i)
	return r
}

// timestampReason checks what follows the field section at line[i:]: spaces
// and an optional integer timestamp within int64, then spaces. Without a
// timestamp the server assigns its own time.
func timestampReason(line []byte, i int) string {
	n := len(line)
	for i < n && line[i] == ' ' {
		i++
	}
	if i >= n {
		return ""
	}
	if line[i] == '-' {
		i++
	}
	start := i
	var v uint64
	for i < n && line[i] >= '0' && line[i] <= '9' {
		d := uint64(line[i] - '0')
		if v > (1<<63-1-d)/10 {
			return "timestamp out of range (int64 nanoseconds)"
		}
		v = v*10 + d
		i++
	}
	if i == start || (i < n && line[i] != ' ') {
		return "invalid timestamp"
	}
	for i < n && line[i] == ' ' {
		i++
	}
	if i != n {
		return "unexpected data after timestamp"
	}
	return ""
}
