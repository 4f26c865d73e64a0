package ilp

import (
	"bytes"
	"strconv"

	"github.com/tsload/tsload/pkg/format"
)

// TimeRange returns the smallest and largest timestamp of data's lines (in
// the units the lines carry them: the loader's precision); ok is false
// when data holds no line. A line without a timestamp is a *format.TimeError: its
// time is the server's clock, which no shift can move.
func TimeRange(data []byte) (lo, hi int64, ok bool, err error) {
	return format.TimeRange(func(add func(int64)) error {
		return eachTimestamp(data, func(_ int, ts int64, _, _ int) error { add(ts); return nil })
	})
}

// AppendShifted appends data with every line's timestamp moved by delta
// units; nothing else changes (comments, blank lines and the rest of each
// line are copied as they are). A timestamp that would leave int64 is a
// *format.TimeError.
func AppendShifted(dst, data []byte, delta int64) ([]byte, error) {
	last := 0
	err := eachTimestamp(data, func(line int, ts int64, start, end int) error {
		s, ok := format.Shift(ts, delta)
		if !ok {
			return &format.TimeError{Unit: "line", N: line, Reason: "timestamp " + strconv.FormatInt(ts, 10) + " shifted by " + strconv.FormatInt(delta, 10) + " overflows int64"}
		}
		dst = append(dst, data[last:start]...)
		dst = strconv.AppendInt(dst, s, 10)
		last = end
		return nil
	})
	return append(dst, data[last:]...), err
}

// eachTimestamp calls fn with the number, timestamp and the timestamp
// token's offsets in data of every line that is not blank or a comment.
func eachTimestamp(data []byte, fn func(line int, ts int64, start, end int) error) error {
	line := 0
	for off := 0; off < len(data); {
		line++
		n := bytes.IndexByte(data[off:], '\n')
		end := off + n
		if n < 0 {
			end = len(data)
		}
		l := data[off:end]
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if t := bytes.TrimLeft(l, " \t"); len(t) > 0 && t[0] != '#' {
			s, e, reason := timestampToken(l)
			if reason != "" {
				return &format.TimeError{Unit: "line", N: line, Reason: reason}
			}
			ts, ok := parseTimestamp(l[s:e])
			if !ok {
				return &format.TimeError{Unit: "line", N: line, Reason: "timestamp " + strconv.Quote(string(l[s:e])) + " is not a decimal integer as line protocol writes it"}
			}
			if err := fn(line, ts, off+s, off+e); err != nil {
				return err
			}
		}
		off = end + 1
	}
	return nil
}

// timestampToken finds the timestamp of a line: the third section, after
// the unescaped space that ends the measurement and tags and the one
// (outside string fields' quotes) that ends the fields.
func timestampToken(l []byte) (start, end int, reason string) {
	i := 0
	for ; i < len(l) && l[i] != ' '; i++ { // measurement and tags
		if l[i] == '\\' {
			i++
		}
	}
	for i < len(l) && l[i] == ' ' {
		i++
	}
	quoted := false
	for ; i < len(l); i++ { // fields
		switch c := l[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ' ' && !quoted:
			goto fields
		}
	}
	return 0, 0, "no timestamp (a line that takes the server's time cannot be replayed with shifted timestamps)"
fields:
	for i < len(l) && l[i] == ' ' {
		i++
	}
	start, end = i, len(l)
	for end > start && (l[end-1] == ' ' || l[end-1] == '\t') {
		end--
	}
	if start == end {
		return 0, 0, "no timestamp (a line that takes the server's time cannot be replayed with shifted timestamps)"
	}
	return start, end, ""
}

// parseTimestamp reads a decimal int64 written as strconv writes it (an
// optional '-', no leading zeros, no "-0"), without allocating: any other
// spelling would not come back the same from a shift and back.
func parseTimestamp(b []byte) (int64, bool) {
	d := b
	neg := len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || d[0] == '+' || d[0] == '0' && (len(d) > 1 || neg) {
		return 0, false // not strconv's spelling: ParseInt would take it
	}
	return ParseInt(b)
}
