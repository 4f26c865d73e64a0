package split

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/tsload/tsload/pkg/load"
)

// maxInterned bounds the measurement names remembered per input.
const maxInterned = 1 << 16

// ilpState is the ILP splitter's state: the measurement names seen, so a
// batch's per-table counts allocate a name only once per input.
type ilpState struct {
	names    map[string]string // raw (escaped) measurement => unescaped name
	deferred bool              // Config.DeferChecks in effect
}

func (s *Splitter) initILP() error {
	s.ilp.names = make(map[string]string)
	s.step = s.stepILP
	if s.cfg.DeferChecks && s.cfg.Parts == 1 && !(s.cfg.SkipInvalid && s.cfg.Limit > 0) {
		s.step = s.stepILPDeferred
		s.ilp.deferred = true
		s.startPscan()
	}
	return nil
}

// readLine returns the next line without its line ending ("\n" or "\r\n"),
// valid until the next read, and the number of bytes consumed. A last line
// without '\n' loses a final CR too.
func (s *Splitter) readLine() (line []byte, n int, err error) {
	line, n, err = s.readRawLine()
	if err == nil && len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line, n, err
}

// readRawLine returns the next line without its '\n' (a CR before it is
// kept), valid until the next read, and the number of bytes consumed.
func (s *Splitter) readRawLine() (line []byte, n int, err error) {
	line, err = s.in.br.ReadSlice('\n')
	n = len(line)
	switch {
	case err == nil:
		return line[:len(line)-1], n, nil
	case err == io.EOF:
		if n == 0 {
			return nil, 0, io.EOF
		}
		return line, n, nil // a last line without '\n'
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, n, &MalformedError{Source: s.in.Source, Record: s.record + 1, Line: s.line + 1, Offset: s.offset,
			Reason: fmt.Sprintf("line longer than the %d-byte limit", s.cfg.MaxRecordBytes)}
	default:
		return nil, n, err
	}
}

// ilpBulk enables bulkILP (tests compare with it off).
var ilpBulk = true

func (s *Splitter) stepILP() error {
	if ilpBulk && s.bulkILP() > 0 {
		return nil
	}
	line, n, err := s.readLine()
	if err != nil {
		return err
	}
	lineNo, off := s.line+1, s.offset
	s.line++
	s.offset += int64(n)

	r := scanILP(line)
	if r.reason != "" {
		s.record++
		return s.malformed(s.record, lineNo, off, bytes.TrimSuffix(line, []byte("\r")), true, "%s", r.reason)
	}
	part := 0
	if r.row {
		s.record++
		if s.cfg.Parts > 1 {
			part = s.part(mixHash(0, line[:r.keyEnd]))
		}
	}
	if !r.row {
		// Comment and blank lines stay in a batch (keeping its lines
		// consecutive) only between rows of an unrouted batch.
		if s.cfg.Parts == 1 {
			if sl := s.slotFor(-1, 0); sl.b.Rows > 0 {
				sl.b.Data = append(append(sl.b.Data, line...), '\n')
				if len(sl.b.Data) >= s.cfg.MaxBatchBytes && !sl.ready { // comments cannot grow a batch without bound
					sl.ready = true
					s.ready = append(s.ready, sl)
				}
			}
		}
		return nil
	}
	sl := s.slotFor(-1, part)
	s.reserve(sl, len(line)+1)
	sl.begin(s.record, lineNo, off)
	sl.b.Data = append(append(sl.b.Data, line...), '\n')
	sl.b.Rows++
	sl.b.Metrics += r.fields
	s.countTable(&sl.b, line[:r.nameEnd])
	s.added(sl)
	return nil
}

// bulkILP takes the complete plain lines (LF-terminated, accepted by
// scanILPFast) already in the input's buffer, without copying them out
// line by line, until a batch fills; it returns the number of rows taken.
// It stops at the first line it does not take (a comment, a blank or
// malformed line, a CRLF line, a line the fast path declines, the end of
// the buffered bytes), which stepILP then handles as before, so the
// batches, counts and errors are the same as line by line.
func (s *Splitter) bulkILP() int {
	br := s.in.br
	buf, _ := br.Peek(br.Buffered())
	taken, off := 0, 0
	for len(s.ready) == 0 {
		i := bytes.IndexByte(buf[off:], '\n')
		if i < 0 {
			break
		}
		line := buf[off : off+i]
		r, ok := scanILPFast(line) // also declines a line ending in '\r'
		if !ok {
			break
		}
		s.line++
		s.record++
		part := 0
		if s.cfg.Parts > 1 {
			part = s.part(mixHash(0, line[:r.keyEnd]))
		}
		sl := s.slotFor(-1, part)
		s.reserve(sl, i+1)
		sl.begin(s.record, s.line, s.offset)
		s.offset += int64(i + 1)
		sl.b.Data = append(sl.b.Data, buf[off:off+i+1]...)
		sl.b.Rows++
		sl.b.Metrics += r.fields
		s.countTable(&sl.b, line[:r.nameEnd])
		s.added(sl)
		off += i + 1
		taken++
		if s.cfg.Limit > 0 && s.rows >= s.cfg.Limit {
			break
		}
	}
	if off > 0 {
		br.Discard(off)
	}
	return taken
}

// reserve gives a batch that starts in a buffer that never held data room
// for a batch of lines of n bytes (at most 8 MiB), so that it does not
// grow by doubling: the runner's batches start empty.
func (s *Splitter) reserve(sl *slot, n int) {
	if cap(sl.b.Data) > 0 || sl.b.Rows > 0 {
		return
	}
	sl.b.Data = make([]byte, 0, min(s.cfg.BatchSize*n, s.cfg.MaxBatchBytes, 8<<20)+n)
}

// countTable adds one row of measurement name (raw, escaped) to b.Tables.
func (s *Splitter) countTable(b *load.Batch, raw []byte) { countTable(s.ilp.names, b, raw) }

// countTable adds one row of measurement name (raw, escaped) to b.Tables;
// names remembers the unescaped names.
func countTable(names map[string]string, b *load.Batch, raw []byte) {
	t := b.Tables
	if n := len(t); n > 0 && t[n-1].Name == string(raw) {
		t[n-1].Rows++
		return
	}
	name, ok := names[string(raw)]
	if !ok {
		name = unescapeILP(raw)
		if len(names) < maxInterned { // bounded, whatever the input
			names[string(raw)] = name
		}
	}
	addRows(b, name, 1)
}

// addRows adds n rows of table name to b.Tables.
func addRows(b *load.Batch, name string, n int64) {
	t := b.Tables
	for i := range t {
		if t[i].Name == name {
			t[i].Rows += n
			// Keep the most recent name last so runs of one measurement hit first.
			t[i], t[len(t)-1] = t[len(t)-1], t[i]
			return
		}
	}
	b.Tables = append(t, load.TableRows{Name: name, Rows: n})
}

func unescapeILP(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		out = append(out, raw[i])
	}
	return string(out)
}

// ilpLine is what scanILP found in one line.
type ilpLine struct {
	row     bool   // a data line (false: comment or blank)
	nameEnd int    // end of the measurement name
	keyEnd  int    // end of the series key (measurement and tags)
	fields  int    // number of fields
	reason  string // why the line is malformed, or ""
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

// scanILP validates one line (without its line ending) cheaply: a
// measurement, well-formed tags, at least one field with a key and a value
// (string values may hold escaped quotes, commas and spaces), an optional
// integer timestamp within int64, no NUL byte and valid UTF-8. Values are
// not decoded.
//
// Most lines (all that tsload writes) are taken by scanILPFast; the lines
// it declines go to scanILPCareful, which gives the same result for every
// line the fast path accepts (FuzzILPFastPath checks it) and the reasons
// for refusals.
func scanILP(line []byte) ilpLine {
	if r, ok := scanILPFast(line); ok {
		return r
	}
	return scanILPCareful(line)
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

// scanILPFast scans the common line 8 bytes at a time (SWAR) and reports
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
func scanILPFast(line []byte) (r ilpLine, ok bool) {
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
		return ilpLine{row: true, nameEnd: nameEnd, keyEnd: firstSp, fields: fields}, true
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
	r.row = true
	r.keyEnd = firstSp
	r.nameEnd = firstSp
	if i := bytes.IndexByte(line[:firstSp], ','); i >= 0 {
		r.nameEnd = i
	}
	r.fields = bytes.Count(line[firstSp+1:end], comma) + 1
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

// scanILPCareful is scanILP byte by byte, for any line.
func scanILPCareful(line []byte) ilpLine {
	var r ilpLine
	n := len(line)
	i := 0
	for i < n && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == n || line[i] == '#' {
		return r // blank or comment
	}
	if i > 0 {
		r.reason = "line starts with whitespace"
		return r
	}
	r.row = true
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
			r.reason = "NUL byte in measurement"
			return r
		default:
			high = true
			i++
		}
	}
	if i > n {
		i = n
	}
	r.nameEnd = i
	if i == 0 {
		r.reason = "missing measurement name"
		return r
	}
	// Tags.
	if i < n && line[i] == ',' {
		i++
		keyStart, eq := i, -1
		for {
			i = skip(line, i, stopTag)
			if i >= n {
				r.reason = "missing field section"
				return r
			}
			c := line[i]
			switch {
			case c == '\\':
				i += 2
			case c == ',' || c == ' ':
				if eq < 0 || eq == keyStart || eq == i-1 {
					r.reason = "tag without key=value"
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
				r.reason = "NUL byte in tag"
				return r
			default:
				high = true
				i++
			}
		}
	}
tagsDone:
	r.keyEnd = i
	if high && !utf8.Valid(line[:i]) {
		r.reason = "invalid UTF-8 in measurement or tags"
		return r
	}
	// Fields.
	for i < n && line[i] == ' ' {
		i++
	}
	if i >= n {
		r.reason = "missing field section"
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
				r.reason = "NUL byte in field key"
				return r
			case c >= 0x80:
				high = true
				i++
			default:
				break key
			}
		}
		if i >= n || line[i] != '=' || i == keyStart {
			r.reason = "field without key=value"
			return r
		}
		i++
		// Value.
		if i < n && line[i] == '"' {
			i++
			for {
				i = skip(line, i, stopString)
				if i >= n {
					r.reason = "unterminated string field value"
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
					r.reason = "NUL byte in string field value"
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
					r.reason = "NUL byte in field value"
					return r
				}
				high = true
				i++
			}
			if i == valStart {
				r.reason = "field without value"
				return r
			}
		}
		r.fields++
		if i >= n || line[i] == ' ' {
			break
		}
		if line[i] != ',' {
			r.reason = "unexpected character after field value"
			return r
		}
		i++
	}
	if high && !utf8.Valid(line) {
		r.reason = "invalid UTF-8"
		return r
	}
	r.reason = timestampReason(line, i)
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
