package split

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/parquet"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
)

// Parquet input (pkg/format/parquet maps the columns). A Parquet file is
// read from its footer, so only a regular file will do: stdin and a
// compressed stream are refused. Its row groups are turned into batches
// of Config.ParquetAs (pgcopy tuples or ILP lines) by Config.ParquetReaders
// goroutines, each taking every ParquetReaders-th row group, in the file's
// order; the batches come out in file order (rows numbered from 1 in the
// file). Memory is bounded by the row groups in flight: at most
// ParquetReaders row groups are read at once, each with one page per
// column decoded and at most parquetAhead+1 batches (Parts of them per
// part when routing) encoded and not yet taken.

// parquetAhead is how many batches a row group's reader may encode ahead
// of the splitter taking them.
const parquetAhead = 2

// parquetState is a Parquet input's reading.
type parquetState struct {
	file    *parquet.File
	as      format.Format
	readers int
	started bool
	outs    []chan pqOut // one per reader
	quit    chan struct{}
	stop    sync.Once
	wg      sync.WaitGroup
	spare   chan []byte
	group   int // the row group being taken
	limit   int64
	skipped atomic.Int64 // rows without a value, written as lines (NoValue)
}

// pqOut is one encoded batch, the end of a row group (end), or an error.
type pqOut struct {
	data    []byte
	rows    int
	metrics int
	part    int
	first   int64 // 1-based row number of its first row
	offset  int64 // byte offset of its row group
	end     bool
	err     error
}

// initParquet opens a Parquet input (one starting with PAR1, or any
// input when Config.Format says parquet); ok is false for other input.
func (s *Splitter) initParquet() (ok bool, err error) {
	head, _ := s.in.br.Peek(len(parquet.Magic))
	isPQ := parquet.IsParquet(head)
	if !isPQ && s.format != format.Parquet {
		return false, nil
	}
	if !isPQ {
		return true, fmt.Errorf("%s: format parquet given but the input does not start with the Parquet magic %q", s.in.Source, parquet.Magic)
	}
	if s.format != format.Unknown && s.format != format.Parquet {
		return true, fmt.Errorf("%s: format %s given but the input is a Parquet file", s.in.Source, s.format)
	}
	f, isFile := s.in.closer.(*os.File)
	switch {
	case s.in.Gzip || s.in.Zstd:
		return true, fmt.Errorf("%s: a compressed Parquet file: Parquet is read from its footer at the end, which needs the file itself; decompress it first (Parquet compresses its pages itself)", s.in.Source)
	case !isFile || s.in.Size < 0:
		return true, fmt.Errorf("%s: Parquet input must be a file: it is read from its footer at the end, which a stream cannot give", s.in.Source)
	}
	s.in.stop() // the file is read where its row groups lie, not as a stream
	name, err := s.parquetTable()
	if err != nil {
		return true, err
	}
	m := s.cfg.Mapping
	if len(m.Columns) > 0 {
		return true, fmt.Errorf("%s: a Parquet file names its columns: a list of column names applies to input without a header", s.in.Source)
	}
	pf, err := parquet.Open(f, s.in.Size, s.in.Source, parquet.Options{
		Table: name, TimeColumn: m.TimeColumn, TimeUnit: m.TimeUnit, Tags: m.Tags, Lookup: s.cfg.Lookup,
	})
	if err != nil {
		return true, err
	}
	as := s.cfg.ParquetAs
	if as != format.PGCopy {
		as = format.ILP
	}
	s.format = as
	s.tables = append(s.tables, pf.Table())
	readers := max(1, min(s.cfg.ParquetReaders, pf.NumRowGroups()))
	s.pq = &parquetState{file: pf, as: as, readers: readers, quit: make(chan struct{}), spare: make(chan []byte, readers*(parquetAhead+2)*s.cfg.Parts)}
	return true, nil
}

// parquetTable is the table's name: Config.Table, else the file's name
// without .parquet.
func (s *Splitter) parquetTable() (string, error) {
	if s.cfg.Table != "" {
		return s.cfg.Table, nil
	}
	name := filepath.Base(s.in.Source)
	for _, ext := range []string{".parquet", ".pq"} {
		name = strings.TrimSuffix(name, ext)
	}
	if validIdent(name) {
		return name, nil
	}
	return "", fmt.Errorf("%s: cannot tell the table from the input's name: name the table", s.in.Source)
}

// start starts the row group readers.
func (p *parquetState) start(s *Splitter) {
	p.started = true
	p.limit = s.cfg.Limit
	p.outs = make([]chan pqOut, p.readers)
	for w := range p.outs {
		p.outs[w] = make(chan pqOut, parquetAhead)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.read(s, w)
		}()
	}
}

// send hands o to the splitter; false when the reading stopped.
func (p *parquetState) send(w int, o pqOut) bool {
	select {
	case p.outs[w] <- o:
		return true
	case <-p.quit:
		return false
	}
}

// read encodes row groups w, w+readers, ... into batches.
func (p *parquetState) read(s *Splitter, w int) {
	var enc format.Encoder
	var err error
	tables := s.tables[:1]
	if p.as == format.PGCopy {
		enc, err = pgcopy.New(tables, false)
	} else {
		enc, err = ilp.New(tables)
	}
	if err != nil {
		p.send(w, pqOut{err: err})
		return
	}
	parts := s.cfg.Parts
	bufs := make([]pqOut, parts)
	for g := w; g < p.file.NumRowGroups(); g += p.readers {
		if err := p.readGroup(s, w, g, enc, bufs); err != nil {
			if err != errStopped {
				p.send(w, pqOut{err: err})
			}
			return
		}
		if !p.send(w, pqOut{end: true}) {
			return
		}
	}
}

var errStopped = errors.New("stopped")

// readGroup encodes row group g; bufs are the pending batch of each part.
func (p *parquetState) readGroup(s *Splitter, w, g int, enc format.Encoder, bufs []pqOut) error {
	pf := p.file
	start := pf.RowGroupStart(g)
	n := pf.RowGroupRows(g)
	if p.limit > 0 {
		n = min(n, p.limit-start)
	}
	if n <= 0 {
		return nil
	}
	rows, err := pf.RowGroup(g, 0)
	if err != nil {
		return err
	}
	defer rows.Close()
	off := pf.RowGroupOffset(g)
	nf := len(pf.Table().Columns) - 1 - countTags(pf)
	flush := func(b *pqOut) error {
		if b.rows == 0 {
			return nil
		}
		if !p.send(w, *b) {
			return errStopped
		}
		*b = pqOut{}
		return nil
	}
	for i := int64(0); i < n; i++ {
		rowNo := rows.Row() + 1
		r, err := rows.Next()
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("%s: row group %d ends at row %d, before its %d rows", s.in.Source, g, rowNo-1, pf.RowGroupRows(g))
			}
			return err
		}
		part := 0
		if s.cfg.Parts > 1 {
			h := seriesStart(0)
			for _, t := range r.Tags {
				h = mixHash(h, t)
			}
			part = s.part(h)
		}
		b := &bufs[part]
		if b.rows == 0 {
			select {
			case d := <-p.spare:
				b.data = d[:0]
			default:
			}
			b.first, b.offset, b.part = rowNo, off, part
		}
		if p.as != format.PGCopy && nf > 0 && bits.OnesCount64(r.Null) >= nf {
			// No field to write: a line needs one (NoValue); a pgcopy row
			// of NULLs is a row.
			p.skipped.Add(1)
			if s.cfg.OnSkip != nil {
				s.cfg.OnSkip(Skipped{Source: s.in.Source, Record: rowNo, Offset: off, Reason: fmt.Sprintf("row %d (row group %d): %s", rowNo, g, NoValue)})
			}
			continue
		}
		b.data, err = enc.AppendRow(b.data, r)
		if err != nil {
			return &parquet.RowError{Source: s.in.Source, Row: rowNo, Group: g, Reason: err.Error()}
		}
		b.rows++
		b.metrics += nf - bits.OnesCount64(r.Null)
		if b.rows >= s.cfg.BatchSize || len(b.data) >= s.cfg.MaxBatchBytes {
			if err := flush(b); err != nil {
				return err
			}
		}
	}
	for i := range bufs {
		if err := flush(&bufs[i]); err != nil {
			return err
		}
	}
	return nil
}

func countTags(pf *parquet.File) int {
	n := 0
	for _, c := range pf.Table().Columns {
		if c.Tag {
			n++
		}
	}
	return n
}

// nextParquet is Next for a Parquet input.
func (s *Splitter) nextParquet(b *load.Batch) (int, error) {
	p := s.pq
	if s.done {
		return 0, io.EOF
	}
	if !p.started {
		p.start(s)
	}
	for {
		if p.group >= p.file.NumRowGroups() {
			s.done = true
			s.offset = s.in.Size
			p.close()
			return 0, io.EOF
		}
		o, ok := <-p.outs[p.group%p.readers]
		if !ok {
			return 0, io.EOF
		}
		if o.err != nil {
			s.done = true
			p.close()
			return 0, o.err
		}
		if o.end {
			p.group++
			if p.group < p.file.NumRowGroups() {
				s.offset = p.file.RowGroupOffset(p.group)
			}
			continue
		}
		b.Release()
		if cap(b.Data) > 0 {
			select {
			case p.spare <- b.Data[:0]:
			default:
			}
		}
		t := s.tables[0]
		*b = load.Batch{
			Format: p.as, Table: t, Data: o.data, Rows: o.rows, Metrics: o.metrics,
			Source: s.in.Source, FirstRecord: o.first, FirstLine: o.first, Offset: o.offset,
			Tables: append(b.Tables[:0], load.TableRows{Name: t.Name, Rows: int64(o.rows)}),
		}
		if p.as == format.ILP {
			b.Table = nil
		}
		s.rows += int64(o.rows)
		s.record = s.rows
		return o.part, nil
	}
}

// close stops the readers and waits for them.
func (p *parquetState) close() {
	p.stop.Do(func() { close(p.quit) })
	p.wg.Wait()
}

// InputFormat is the input's own format: Format, or Parquet for a
// Parquet file (whose batches are Format's).
func (s *Splitter) InputFormat() format.Format {
	if s.pq != nil {
		return format.Parquet
	}
	return s.format
}
