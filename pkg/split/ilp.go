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

	r := ilp.Scan(line)
	if r.Reason != "" {
		s.record++
		return s.malformed(s.record, lineNo, off, bytes.TrimSuffix(line, []byte("\r")), true, "%s", r.Reason)
	}
	part := 0
	if r.Row {
		s.record++
		if s.cfg.Parts > 1 {
			part = s.part(mixHash(0, line[:r.KeyEnd]))
		}
	}
	if !r.Row {
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
	sl.b.Metrics += r.Fields
	s.countTable(&sl.b, line[:r.NameEnd])
	s.added(sl)
	return nil
}

// bulkILP takes the complete plain lines (LF-terminated, accepted by
// ilp.ScanPlain) already in the input's buffer, without copying them out
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
		r, ok := ilp.ScanPlain(line) // also declines a line ending in '\r'
		if !ok {
			break
		}
		s.line++
		s.record++
		part := 0
		if s.cfg.Parts > 1 {
			part = s.part(mixHash(0, line[:r.KeyEnd]))
		}
		sl := s.slotFor(-1, part)
		s.reserve(sl, i+1)
		sl.begin(s.record, s.line, s.offset)
		s.offset += int64(i + 1)
		sl.b.Data = append(sl.b.Data, buf[off:off+i+1]...)
		sl.b.Rows++
		sl.b.Metrics += r.Fields
		s.countTable(&sl.b, line[:r.NameEnd])
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
