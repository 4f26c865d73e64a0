package csv

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Scanner finds the fields of one RFC 4180 record: fields separated by ',',
// the record ending at a '\n' outside quotes ("\r\n" accepted), a field
// that starts with '"' quoted to its closing '"' with inner quotes doubled.
// It is the one reading of a CSV record: the splitter cuts batches with it
// and ParseRecord takes the fields of a batch's records apart with it.
//
// The record may be given in pieces: Scan the bytes so far, and while it
// reports false (the record goes on) Scan again with more bytes appended
// (the same start, so offsets hold). Refusals do not stop the scan, so that
// the record's end is still found: Reason holds the first.
type Scanner struct {
	// Spans makes Scan record every field in Fields (as offsets in the
	// record); without it only N and Counted are kept (the splitter's
	// common path, which needs no more).
	Spans bool
	// Fields are the record's fields so far, with Spans.
	Fields []Field
	// N is the number of fields so far.
	N int
	// Count, when set, makes Counted the number of fields i with Count[i]
	// that are not empty (Field.Empty): the splitter's metrics.
	Count   []bool
	Counted int
	// End is the index of the record's '\n', or of the '\r' of its "\r\n"
	// when that is not inside quotes (the record is rec[:End]); set when
	// Scan reports true.
	End int
	// Reason is the first problem found: "quote inside an unquoted
	// field", "character after a closing quote", "carriage return in an
	// unquoted field" or "NUL byte"; "" when none.
	Reason string

	pos        int // next byte to scan
	fieldStart int
	inQuote    bool
	quoted     bool // current field started with a quote
	afterQuote bool // just after a closing quote
	escaped    bool // current field holds a doubled quote
	high       byte // the OR of the bytes seen (bit 7: not ASCII)
}

// Field is one field of a record: rec[Start:End] is its raw text (with its
// quotes when Quoted; Escaped: it holds doubled quotes).
type Field struct {
	Start, End      int32 // records are far shorter than 2 GiB (the splitter's limit)
	Quoted, Escaped bool
}

// Empty reports a field with no text: a NULL (an empty quoted field is an
// empty string, not empty).
func (f Field) Empty() bool { return f.End == f.Start && !f.Quoted }

// Reset starts a new record, keeping Spans, Count and the Fields buffer.
func (sc *Scanner) Reset() {
	*sc = Scanner{Spans: sc.Spans, Count: sc.Count, Fields: sc.Fields[:0]}
}

// Open reports whether the bytes so far end inside a quoted field.
func (sc *Scanner) Open() bool { return sc.inQuote }

// Scan goes on scanning rec; it reports true at the record's end.
func (sc *Scanner) Scan(rec []byte) bool {
	i := sc.pos
	for i < len(rec) {
		if sc.inQuote {
			j := bytes.IndexByte(rec[i:], '"')
			if j < 0 {
				sc.check(rec[i:])
				sc.pos = len(rec)
				return false
			}
			sc.check(rec[i : i+j])
			i += j + 1
			sc.inQuote, sc.afterQuote = false, true
			continue
		}
		c := rec[i]
		switch c {
		case ',':
			sc.endField(i)
			i++
			sc.fieldStart = i
			continue
		case '\n':
			end := i
			if end > sc.fieldStart && rec[end-1] == '\r' && (!sc.quoted || sc.afterQuote) {
				end--
			}
			sc.endField(end)
			sc.End = end
			sc.pos = i + 1
			return true
		case '"':
			switch {
			case sc.afterQuote:
				sc.inQuote, sc.afterQuote, sc.escaped = true, false, true
			case i == sc.fieldStart && !sc.quoted:
				sc.inQuote, sc.quoted = true, true
			default:
				sc.fail("quote inside an unquoted field")
			}
		case '\r':
			if i+1 < len(rec) && rec[i+1] == '\n' {
				break
			}
			sc.fail("carriage return in an unquoted field")
		case 0:
			sc.fail("NUL byte")
		default:
			if sc.afterQuote {
				sc.fail("character after a closing quote")
			}
			sc.high |= c
		}
		i++
	}
	sc.pos = i
	return false
}

// ValidUTF8 reports whether the record's text is valid UTF-8 (after Scan
// reported its end).
func (sc *Scanner) ValidUTF8(rec []byte) bool {
	return sc.high&0x80 == 0 || utf8.Valid(rec[:sc.End])
}

func (sc *Scanner) check(b []byte) {
	for _, c := range b {
		if c == 0 {
			sc.fail("NUL byte")
		}
		sc.high |= c
	}
}

func (sc *Scanner) fail(reason string) {
	if sc.Reason == "" {
		sc.Reason = reason
	}
}

func (sc *Scanner) endField(end int) {
	if f := sc.N; f < len(sc.Count) && sc.Count[f] && (end > sc.fieldStart || sc.quoted) {
		sc.Counted++
	}
	if sc.Spans {
		sc.Fields = append(sc.Fields, Field{Start: int32(sc.fieldStart), End: int32(end), Quoted: sc.quoted, Escaped: sc.escaped})
	}
	sc.N++
	sc.quoted, sc.afterQuote, sc.escaped = false, false, false
}

// Values returns the values of the record that line starts with (its line
// end optional), unquoted, leniently: a record that is not valid CSV still
// gives its fields as the Scanner finds them. For a header or a first
// record, not for the hot path.
func Values(line []byte) []string {
	rec := line
	if len(rec) == 0 || rec[len(rec)-1] != '\n' {
		rec = append(line[:len(line):len(line)], '\n')
	}
	sc := Scanner{Spans: true}
	sc.Scan(rec)
	out := make([]string, 0, len(sc.Fields))
	for _, f := range sc.Fields {
		out = append(out, f.Value(rec))
	}
	return out
}

// Value returns the field's text, unquoted.
func (f Field) Value(rec []byte) string {
	raw := rec[f.Start:f.End]
	switch {
	case !f.Quoted:
		return string(raw)
	case len(raw) < 2 || raw[len(raw)-1] != '"':
		return string(raw[1:]) // an unterminated quote
	case !f.Escaped:
		return string(raw[1 : len(raw)-1])
	}
	return strings.ReplaceAll(string(raw[1:len(raw)-1]), `""`, `"`)
}
