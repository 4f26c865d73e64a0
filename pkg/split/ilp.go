package split

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tsload/tsload/pkg/format/ilp"
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
		s.ilp.deferred = true
		s.startPscan()
	}
	return nil
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

// ilpBulk lets stepILP cut the lines already buffered (tests compare with
// it off: every line read on its own).
var ilpBulk = true

// stepILP is the one ILP path. While a mapped file's segments are scanned
// ahead in parallel (pscan.go: the plain kernel over whole segments), a
// batch is cut from them (cutScanned); from the first line they do not
// take, and for any other input, it cuts the complete lines already in the
// input's buffer (cutBuffered) until a batch fills; when none is complete
// (the buffer must be refilled, the last line has no '\n', a line is over
// the record limit) it reads the next line on its own. Each line of the
// last two goes through addLine, whichever way it was found.
func (s *Splitter) stepILP() error {
	if s.ps.sc != nil {
		return s.cutScanned()
	}
	if ilpBulk {
		if n, err := s.cutBuffered(); n > 0 || err != nil {
			return err
		}
	}
	line, n, err := s.readRawLine()
	if err != nil {
		return err
	}
	return s.addLine(line, n, nil, 0, nil)
}

// cutBuffered takes the complete lines in the input's buffer through
// addLine until a batch fills or the limit is reached, and returns how
// many it took. With the checks here (not deferred), each line is found
// and checked by the plain kernel (ilp.NextLine); addLine checks what it
// declines with the careful one. With deferred checks, lines go into the
// batch where they lie in the buffer (take: zero-copy) when they follow
// each other.
func (s *Splitter) cutBuffered() (taken int, err error) {
	br := s.in.br
	buf, _ := br.Peek(br.Buffered())
	c, pos := br.chunkPos()
	check := !s.ilp.deferred
	off := 0
	var r ilp.Line
	for len(s.ready) == 0 && err == nil {
		var i int
		scanned := (*ilp.Line)(nil)
		if check {
			var plain bool
			if r, i, plain = ilp.NextLine(buf[off:]); plain {
				scanned = &r
			}
		} else {
			i = bytes.IndexByte(buf[off:], '\n')
		}
		if i < 0 {
			break
		}
		err = s.addLine(buf[off:off+i], i+1, c, pos+off, scanned)
		off += i + 1
		taken++
		if s.cfg.Limit > 0 && s.rows >= s.cfg.Limit {
			break
		}
	}
	if off > 0 {
		br.Discard(off)
	}
	return taken, err
}

// addLine adds one line (without its '\n'; n bytes of input with it) to
// its batch. c, when set, is the chunk the line and its '\n' lie in, from
// index at (nil: the line is copied). scanned is the plain kernel's result
// for the line, if it took it; otherwise the line is checked here (the
// careful kernel for what the plain one declines). With deferred checks
// the line is only told a record or not (ilp.IsRecord) and keeps its CR,
// for the Checker.
func (s *Splitter) addLine(line []byte, n int, c *raChunk, at int, scanned *ilp.Line) error {
	lineNo, off := s.line+1, s.offset
	s.line++
	s.offset += int64(n)
	var r ilp.Line
	if s.ilp.deferred {
		r.Row = ilp.IsRecord(line)
	} else {
		c = nil // the splitter's batches are copies with LF line ends
		if scanned != nil {
			r = *scanned
		} else {
			if k := len(line); k > 0 && line[k-1] == '\r' {
				line = line[:k-1]
			}
			r = ilp.Scan(line)
		}
		if r.Reason != "" {
			s.record++
			return s.malformed(s.record, lineNo, off, bytes.TrimSuffix(line, []byte("\r")), true, "%s", r.Reason)
		}
	}
	if !r.Row {
		// Comment and blank lines stay in a batch (keeping its lines
		// consecutive) only between rows of an unrouted batch.
		if s.cfg.Parts == 1 {
			if sl := s.slotFor(-1, 0); sl.b.Rows > 0 {
				s.appendLine(sl, line, c, at)
				if sl.size() >= s.cfg.MaxBatchBytes && !sl.ready { // comments cannot grow a batch without bound
					sl.ready = true
					s.ready = append(s.ready, sl)
				}
			}
		}
		return nil
	}
	s.record++
	part := 0
	if s.cfg.Parts > 1 {
		part = s.part(mixHash(0, line[:r.KeyEnd]))
	}
	sl := s.slotFor(-1, part)
	if c == nil {
		s.reserve(sl, len(line)+1)
	}
	sl.begin(s.record, lineNo, off)
	s.appendLine(sl, line, c, at)
	sl.b.Rows++
	if s.ilp.deferred {
		sl.b.Unchecked = true
	} else {
		sl.b.Metrics += r.Fields
		s.countTable(&sl.b, line[:r.NameEnd])
	}
	s.added(sl)
	return nil
}

// appendLine adds line and a '\n' to sl's batch: in place when c (the
// chunk they lie in from index at) is set and the batch can go on there,
// else copied.
func (s *Splitter) appendLine(sl *slot, line []byte, c *raChunk, at int) {
	if c != nil {
		s.take(sl, line[:len(line)+1], c, at)
		return
	}
	s.own(sl)
	s.grow(sl, len(line)+1)
	sl.b.Data = append(append(sl.b.Data, line...), '\n')
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
		name = ilp.Unescape(raw)
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
