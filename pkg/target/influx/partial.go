package influx

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/load"
)

// writeError is the parsed "error" of a 400 answer to /write.
//
// InfluxDB 1.6.7 answers (checked against the server):
//
//	partial write: unable to parse 'm,h=b v=oops x 12': invalid boolean dropped=0
//	partial write: field type conflict: input field "v" on measurement "m" is type string, already exists as type float dropped=1
//	unable to parse 'bad line': invalid field format\nunable to parse 'worse': missing fields
//	field type conflict
//
// The first form lists every line it could not parse (dropped=0: dropped
// counts only points refused by the storage layer). The second comes from
// the storage layer and names no line; when a batch also had unparsable
// lines the server does not mention them. The last two wrote nothing: every
// line was unparsable, or the whole write failed.
type writeError struct {
	partial bool          // "partial write: " prefix
	parse   []parseFailed // "unable to parse '<line>': <reason>" entries
	dropped int           // dropped=N, or -1 when absent
	reason  string        // the message without prefix and dropped=N
}

type parseFailed struct {
	line   []byte // the line as the server quoted it (leading blanks and '\n' stripped)
	reason string // the parser's reason; may be ambiguous if the line contains "': "
	// alt holds other possible (line, reason) splits when the quoted line
	// itself contains "': "; the first that names a batch line wins.
	alt []int
	raw []byte
}

const (
	partialPrefix = "partial write: "
	parsePrefix   = "unable to parse '"
	droppedMarker = " dropped="
)

// parseWriteError parses msg (the JSON "error" string).
func parseWriteError(msg []byte) writeError {
	var we writeError
	we.dropped = -1
	if bytes.HasPrefix(msg, []byte(partialPrefix)) {
		we.partial = true
		msg = msg[len(partialPrefix):]
		if i := bytes.LastIndex(msg, []byte(droppedMarker)); i >= 0 {
			if n, err := strconv.Atoi(string(msg[i+len(droppedMarker):])); err == nil && n >= 0 {
				we.dropped = n
				msg = msg[:i]
			}
		}
	}
	we.reason = string(msg)
	if !bytes.HasPrefix(msg, []byte(parsePrefix)) {
		return we
	}
	// Entries are joined by "\n"; a quoted line may itself hold a newline
	// (inside a string field), so split only before "\nunable to parse '".
	sep := []byte("\n" + parsePrefix)
	for len(msg) > 0 {
		msg = msg[len(parsePrefix):]
		end := bytes.Index(msg, sep)
		entry := msg
		if end >= 0 {
			entry, msg = msg[:end], msg[end+1:]
		} else {
			msg = nil
		}
		we.parse = append(we.parse, splitEntry(entry))
	}
	return we
}

// splitEntry splits "<line>': <reason>" at the first "': "; the positions of
// later "': " are kept as alternatives.
func splitEntry(entry []byte) parseFailed {
	pf := parseFailed{raw: entry}
	marker := []byte("': ")
	first := -1
	for off := 0; ; {
		i := bytes.Index(entry[off:], marker)
		if i < 0 {
			break
		}
		if first < 0 {
			first = off + i
		} else {
			pf.alt = append(pf.alt, off+i)
		}
		off += i + 1
	}
	if first < 0 {
		pf.line = bytes.TrimSuffix(entry, []byte("'"))
		return pf
	}
	pf.line, pf.reason = entry[:first], string(entry[first+len(marker):])
	return pf
}

// lineIndex maps the lines of a batch, as InfluxDB quotes them, to their
// 0-based line numbers within the batch. Used only on the error path.
type lineIndex map[string][]int64

func indexLines(data []byte) lineIndex {
	idx := make(lineIndex)
	var n int64
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		key := bytes.TrimLeft(line, " \t")
		if len(key) > 0 && key[0] != '#' {
			idx[string(key)] = append(idx[string(key)], n)
		}
		n++
	}
	return idx
}

// take returns the next unused batch line number holding line, or -1.
func (idx lineIndex) take(line []byte) int64 {
	l := idx[string(line)]
	if len(l) == 0 {
		return -1
	}
	idx[string(line)] = l[1:]
	return l[0]
}

// rejections turns the server's named parse failures into rejections with
// input line numbers (Line 0 when a quoted line is not found in the batch).
func rejections(b *load.Batch, fails []parseFailed) []load.Rejection {
	idx := indexLines(b.Data)
	out := make([]load.Rejection, 0, len(fails))
	for _, f := range fails {
		n := idx.take(f.line)
		reason := f.reason
		for _, at := range f.alt {
			if n >= 0 {
				break
			}
			if n = idx.take(f.raw[:at]); n >= 0 {
				reason = string(f.raw[at+3:])
			}
		}
		r := load.Rejection{Reason: "unable to parse: " + reason}
		if n >= 0 {
			r.Line = b.FirstLine + n
		} else {
			r.Reason = "unable to parse '" + string(f.raw)
		}
		out = append(out, r)
	}
	return out
}

// localParseFailures finds the lines of data that the line-protocol decoder
// cannot parse: the storage-layer partial write message of InfluxDB does not
// mention the unparsable lines of the same batch, which were dropped too.
func localParseFailures(b *load.Batch) []load.Rejection {
	var out []load.Rejection
	dec := lineprotocol.NewDecoderWithBytes(b.Data)
	for dec.Next() {
		if err := checkEntry(dec); err != nil {
			var de *lineprotocol.DecodeError
			r := load.Rejection{Reason: "unable to parse (found by the loader; the server's partial-write message named only its storage error): " + err.Error()}
			if errors.As(err, &de) {
				r.Line = b.FirstLine + de.Line - 1
				r.Reason = "unable to parse (found by the loader; the server's partial-write message named only its storage error): " + de.Err.Error()
			}
			out = append(out, r)
		}
	}
	return out
}

func checkEntry(dec *lineprotocol.Decoder) error {
	if _, err := dec.Measurement(); err != nil {
		return err
	}
	for {
		k, _, err := dec.NextTag()
		if err != nil {
			return err
		}
		if k == nil {
			break
		}
	}
	for {
		k, _, err := dec.NextField()
		if err != nil {
			return err
		}
		if k == nil {
			break
		}
	}
	_, err := dec.TimeBytes()
	return err
}
