package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
)

// ErrTooManyErrors is returned (wrapped) when more records were skipped or
// refused than Config.MaxErrors allows.
var ErrTooManyErrors = errors.New("too many skipped or refused records")

// errorsFile receives every record skipped as malformed and every row the
// server refused, each as a comment line naming the input, line, byte
// offset and reason, then the raw line: ILP, so that the file can be
// fixed and loaded as it is. Workers and the reader share it.
type errorsFile struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	path string
	err  error // the first write error
}

func createErrorsFile(path string) (*errorsFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("errors file: %w", err)
	}
	return &errorsFile{f: f, w: bufio.NewWriterSize(f, 64<<10), path: path}, nil
}

// add writes one record: where it was, why it is here, and its bytes.
func (e *errorsFile) add(where, reason string, raw []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return
	}
	// One comment line: the server's words may span several.
	reason = strings.Join(strings.Fields(reason), " ")
	fmt.Fprintf(e.w, "# %s: %s\n", where, reason)
	if raw != nil {
		e.w.Write(raw)
		e.err = e.w.WriteByte('\n')
	}
}

// close flushes and closes the file; it returns the first error.
func (e *errorsFile) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.w.Flush(); err != nil && e.err == nil {
		e.err = err
	}
	if err := e.f.Close(); err != nil && e.err == nil {
		e.err = err
	}
	if e.err != nil {
		return fmt.Errorf("errors file %s: %w", e.path, e.err)
	}
	return nil
}

// onSkip counts a record skipped as malformed and writes it to the errors
// file.
func (r *run) onSkip(s split.Skipped) {
	r.n.errorCount.Add(1)
	where := fmt.Sprintf("%s: line %d, byte offset %d", s.Source, s.Line, s.Offset)
	switch {
	case s.Line == 0 && s.Record > 0:
		where = fmt.Sprintf("%s: record %d", s.Source, s.Record)
	case s.Line == 0:
		where = s.Source
	}
	if strings.HasSuffix(s.Reason, split.NoValue) && r.n.noValueSaid.CompareAndSwap(false, true) {
		// Said once; the summary's skipped records count them all.
		fmt.Fprintf(r.cfg.Stderr, "%s: %s (this and every other such row: counted in skipped records)\n", where, s.Reason)
	}
	if r.bad.file != nil {
		r.bad.file.add(where+": skipped", s.Reason, s.Raw)
	}
}

// onRefused counts the rows of b that the server acknowledged as not
// written (ack) and writes the ones it named to the errors file.
func (r *run) onRefused(b *load.Batch, ack load.Ack) {
	acked := max(0, min(ack.Rows, b.Rows))
	if acked == b.Rows {
		return
	}
	r.n.errorCount.Add(int64(b.Rows - acked))
	if r.bad.file == nil {
		return
	}
	for _, rj := range ack.Rejected {
		var raw []byte
		if rj.Line > 0 {
			raw = r.prefix.unprefixed(nthLine(b.Data, rj.Line-b.FirstLine))
		}
		where := fmt.Sprintf("%s: line %d: refused by the server", b.Source, rj.Line)
		if rj.Line <= 0 {
			where = b.Where() + ": a row refused by the server"
		}
		r.bad.file.add(where, rj.Reason, raw)
	}
	if n := b.Rows - acked - len(ack.Rejected); n > 0 {
		r.bad.file.add(b.Where(), fmt.Sprintf("%d more rows refused by the server without naming them", n), nil)
	}
}

// nthLine returns line n (0-based) of data without its line end, or nil.
func nthLine(data []byte, n int64) []byte {
	for ; n > 0; n-- {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	if len(data) == 0 {
		return nil
	}
	return bytes.TrimSuffix(data, []byte("\r"))
}

// overErrorLimit returns ErrTooManyErrors (wrapped) once more records were
// skipped or refused than MaxErrors allows.
func (r *run) overErrorLimit() error {
	if !r.cfg.LimitErrors {
		return nil
	}
	if n := r.n.errorCount.Load(); n > r.cfg.MaxErrors {
		return fmt.Errorf("%w: %d records skipped or refused, more than the limit of %d", ErrTooManyErrors, n, r.cfg.MaxErrors)
	}
	return nil
}
