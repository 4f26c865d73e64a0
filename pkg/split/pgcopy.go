package split

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/schema"
)

// pgcopyState is the pgcopy splitter's state.
type pgcopyState struct {
	multi  bool
	cur    int   // table of the current frame (multi-table stream)
	remain int64 // bytes left in the current frame; -1 between frames
	metric [][]bool
	tag    [][]bool
	ended  bool
	fields [][]byte // the tuple in hand (pgcopy.Tuple)
}

// view returns every buffered byte at the read position, reading more
// first when fewer than n are buffered (fewer than n are returned only at
// the end of the input). n may not exceed the buffer size.
func (s *Splitter) view(n int) ([]byte, error) {
	br := s.in.br
	if br.Buffered() < n {
		if n > s.cfg.MaxRecordBytes {
			return nil, &MalformedError{Source: s.in.Source, Record: s.record + 1, Offset: s.offset,
				Reason: fmt.Sprintf("tuple longer than the %d-byte limit", s.cfg.MaxRecordBytes)}
		}
		if _, err := br.Peek(n); err != nil && err != io.EOF {
			return nil, err
		}
	}
	b, _ := br.Peek(br.Buffered())
	return b, nil
}

func (s *Splitter) pgErr(record int64, off int64, format string, args ...any) error {
	return &MalformedError{Source: s.in.Source, Record: record, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// consume discards n bytes already viewed.
func (s *Splitter) consume(n int) {
	s.in.br.Discard(n)
	s.offset += int64(n)
}

func (s *Splitter) initPGCopy() error {
	p := &s.pgcopy
	head, err := s.view(len(tslcopyMagic))
	if err != nil {
		return err
	}
	if bytes.HasPrefix(head, tslcopyMagic) {
		p.multi = true
		if err := s.readTSLCopyHeader(); err != nil {
			return err
		}
		p.remain = -1
	} else {
		hdr, err := s.view(19)
		if err != nil {
			return err
		}
		if len(hdr) < 11 || string(hdr[:11]) != string(pgcopyMagic) {
			return s.pgErr(0, 0, "bad pgcopy signature (want PGCOPY\\n\\377\\r\\n\\0)")
		}
		if len(hdr) < 19 {
			return s.pgErr(0, int64(len(hdr)), "truncated pgcopy header")
		}
		if err := pgcopy.CheckFlags(binary.BigEndian.Uint32(hdr[11:15])); err != nil {
			return s.pgErr(0, 11, "%s", err)
		}
		ext := int64(binary.BigEndian.Uint32(hdr[15:19]))
		s.consume(19)
		var declared *schema.Table
		if ext > 0 {
			if ext > int64(s.cfg.MaxRecordBytes) {
				return s.pgErr(0, 15, "pgcopy header extension of %d bytes is too long", ext)
			}
			b, err := s.view(int(ext))
			if err != nil {
				return err
			}
			if int64(len(b)) < ext {
				return s.pgErr(0, s.offset, "truncated pgcopy header extension")
			}
			if declared, err = s.readTableChunk(b[:ext]); err != nil {
				return err
			}
			s.consume(int(ext))
		}
		t, err := s.singlePGCopyTable(declared)
		if err != nil {
			return err
		}
		s.tables = []*schema.Table{t}
	}
	for _, t := range s.tables {
		p.metric = append(p.metric, metricColumns(t))
		p.tag = append(p.tag, tagColumns(t))
	}
	s.step = s.stepPGCopy
	return nil
}

// readTSLCopyHeader parses the multi-table pgcopy stream's table list.
func (s *Splitter) readTSLCopyHeader() error {
	s.consume(len(tslcopyMagic))
	u16 := func(what string) (int, error) {
		b, err := s.view(2)
		if err != nil {
			return 0, err
		}
		if len(b) < 2 {
			return 0, s.pgErr(0, s.offset, "truncated multi-table pgcopy header (%s)", what)
		}
		v := int(binary.BigEndian.Uint16(b))
		s.consume(2)
		return v, nil
	}
	nt, err := u16("table count")
	if err != nil {
		return err
	}
	if nt == 0 {
		return s.pgErr(0, s.offset-2, "multi-table pgcopy stream declares no table")
	}
	for i := 0; i < nt; i++ {
		off := s.offset
		t, err := s.readTableDecl()
		if err != nil {
			return err
		}
		for _, o := range s.tables {
			if o.Name == t.Name {
				return s.pgErr(0, off, "table %q declared twice", t.Name)
			}
		}
		if known := s.cfg.Lookup(t.Name); known != nil && sameColumns(known, t, true) {
			t = known
		}
		s.tables = append(s.tables, t)
	}
	return nil
}

// readTableDecl reads one table declaration of the TSLCOPY header.
func (s *Splitter) readTableDecl() (*schema.Table, error) {
	n := 256
	for {
		b, err := s.view(n)
		if err != nil {
			return nil, err
		}
		t, used, errOff, reason := parseTableDecl(b)
		switch {
		case reason == "":
			s.consume(used)
			return t, nil
		case errOff < 0 && len(b) >= n: // more bytes may complete it
			if n >= s.cfg.MaxRecordBytes {
				return nil, s.pgErr(0, s.offset, "table declaration longer than the %d-byte limit", s.cfg.MaxRecordBytes)
			}
			n = min(2*len(b), s.cfg.MaxRecordBytes)
		case errOff < 0:
			return nil, s.pgErr(0, s.offset+int64(len(b)), "truncated multi-table pgcopy header (%s)", reason)
		default:
			return nil, s.pgErr(0, s.offset+int64(errOff), "%s", reason)
		}
	}
}

// parseTableDecl decodes a table declaration (docs/formats.md: uint16 name
// length, name, uint16 column count, then per column uint16 name length,
// name, uint8 type code, uint8 flags with bit 0 for a tag) at the start of
// b. It returns the table and the bytes used, or a reason with the offset
// of the fault in b; errOff is -1 when b ends inside the declaration.
func parseTableDecl(b []byte) (t *schema.Table, used, errOff int, reason string) {
	p := 0
	u16 := func() (int, bool) {
		if len(b) < p+2 {
			return 0, false
		}
		v := int(binary.BigEndian.Uint16(b[p:]))
		p += 2
		return v, true
	}
	str := func() (string, bool) {
		n, ok := u16()
		if !ok || len(b) < p+n {
			return "", false
		}
		v := string(b[p : p+n])
		p += n
		return v, true
	}
	name, ok := str()
	if !ok {
		return nil, 0, -1, "table name"
	}
	if !validIdent(name) {
		return nil, 0, 0, fmt.Sprintf("invalid table name %q", name)
	}
	nc, ok := u16()
	if !ok {
		return nil, 0, -1, "column count"
	}
	if nc == 0 {
		return nil, 0, 0, fmt.Sprintf("table %s has no columns", name)
	}
	t = &schema.Table{Name: name, Columns: make([]schema.Column, 0, nc)}
	for j := 0; j < nc; j++ {
		coff := p
		cn, ok := str()
		if !ok || len(b) < p+2 {
			return nil, 0, -1, "column name and type"
		}
		ty := schema.Type(b[p])
		if !ty.Valid() || !validIdent(cn) {
			return nil, 0, coff, fmt.Sprintf("table %s: invalid column %q of type code %d", name, cn, b[p])
		}
		t.Columns = append(t.Columns, schema.Column{Name: cn, Type: ty, Tag: b[p+1]&1 != 0})
		p += 2
	}
	return t, p, 0, ""
}

// readTableChunk returns the table that a single-table file's header
// extension ext declares in a tsload table chunk (docs/formats.md), or nil
// when ext holds none (other extension data is skipped, as PostgreSQL does).
// The chunk is ext's first; bytes after it are not read.
func (s *Splitter) readTableChunk(ext []byte) (*schema.Table, error) {
	if !bytes.HasPrefix(ext, pgChunkTag) {
		return nil, nil
	}
	base := s.offset // ext[0]
	p := len(pgChunkTag)
	if len(ext) < p+4 {
		return nil, s.pgErr(0, base+int64(p), "tsload table chunk: truncated length")
	}
	n := int64(binary.BigEndian.Uint32(ext[p:]))
	p += 4
	if n > int64(len(ext)-p) {
		return nil, s.pgErr(0, base+int64(p-4), "tsload table chunk of %d bytes overruns the %d-byte header extension", n, len(ext))
	}
	t, used, errOff, reason := parseTableDecl(ext[p : p+int(n)])
	switch {
	case errOff < 0:
		return nil, s.pgErr(0, base+int64(p), "tsload table chunk: truncated declaration (%s)", reason)
	case reason != "":
		return nil, s.pgErr(0, base+int64(p+errOff), "tsload table chunk: %s", reason)
	case used != int(n):
		return nil, s.pgErr(0, base+int64(p+used), "tsload table chunk: %d bytes after the table declaration", int(n)-used)
	}
	return t, nil
}

// singlePGCopyTable is the table of a single-table pgcopy input. With a
// declared table (the header's tsload chunk) the columns are those declared
// and the name is Config.Table, else the declared name (a file's name does
// not override what the file says it holds); a known table of that name must
// have as many columns. Without one, the name (Config.Table or the file's)
// must be a known table.
func (s *Splitter) singlePGCopyTable(declared *schema.Table) (*schema.Table, error) {
	if declared == nil {
		name, err := s.tableName()
		if err != nil {
			return nil, err
		}
		t := s.cfg.Lookup(name)
		if t == nil {
			return nil, fmt.Errorf("%s: unknown table %q: a pgcopy file without a tsload table chunk carries no column names, pass --table with a table of a use case", s.in.Source, name)
		}
		return t, nil
	}
	name := declared.Name
	if s.cfg.Table != "" {
		name = s.cfg.Table
	}
	known := s.cfg.Lookup(name)
	if known != nil && len(known.Columns) != len(declared.Columns) {
		return nil, fmt.Errorf("%s: the file declares table %s with %d columns, table %s has %d", s.in.Source, declared.Name, len(declared.Columns), name, len(known.Columns))
	}
	if known != nil && sameColumns(known, declared, true) {
		return known, nil
	}
	if name == declared.Name {
		return declared, nil
	}
	t := *declared
	t.Name = name
	return &t, nil
}

func (s *Splitter) stepPGCopy() error {
	p := &s.pgcopy
	if p.ended {
		return io.EOF
	}
	t := 0
	if p.multi {
		for p.remain <= 0 {
			if p.remain == 0 {
				p.remain = -1
			}
			b, err := s.view(6)
			if err != nil {
				return err
			}
			if len(b) >= 2 && b[0] == 0xff && b[1] == 0xff {
				s.consume(2)
				return s.pgEnd()
			}
			if len(b) < 6 {
				return s.pgErr(0, s.offset, "missing end marker (ff ff) of the multi-table pgcopy stream (truncated?)")
			}
			idx := int(binary.BigEndian.Uint16(b))
			if idx >= len(s.tables) {
				return s.pgErr(0, s.offset, "frame names table %d, the stream declares %d", idx, len(s.tables))
			}
			p.cur = idx
			p.remain = int64(binary.BigEndian.Uint32(b[2:]))
			s.consume(6)
			if p.remain == 0 {
				p.remain = -1
			}
		}
		t = p.cur
	}
	if s.cfg.Parts == 1 && s.pgRun(t) {
		return nil
	}
	return s.pgTuple(t)
}

// pgRun is the fast path without routing: it walks the complete, valid
// tuples of table t already buffered (up to the batch's free room, the
// frame's end and the limit) and appends them with one copy. It returns
// false when there is none, leaving the next tuple to pgTuple (which reads
// more input and reports errors).
func (s *Splitter) pgRun(t int) bool {
	p := &s.pgcopy
	sl := s.slotFor(t, 0)
	room := s.cfg.BatchSize - sl.b.Rows
	if s.cfg.Limit > 0 {
		room = min(room, int(s.cfg.Limit-s.rows))
	}
	view, _ := s.in.br.Peek(s.in.br.Buffered())
	if p.multi {
		view = view[:min(int64(len(view)), p.remain)]
	}
	metric := p.metric[t]
	ncols := len(metric)
	nmetric := 0
	for _, m := range metric {
		if m {
			nmetric++
		}
	}
	pos, rows, metrics := 0, 0, 0
	room2 := s.cfg.MaxBatchBytes - len(sl.b.Data)
	for rows < room && pos+2 <= len(view) && pos < runBytes && pos < room2 {
		if int(int16(uint16(view[pos])<<8|uint16(view[pos+1]))) != ncols {
			break
		}
		q, m := pos+2, nmetric
		for f := 0; f < ncols; f++ {
			if q+4 > len(view) {
				q = -1
				break
			}
			n := int(int32(uint32(view[q])<<24 | uint32(view[q+1])<<16 | uint32(view[q+2])<<8 | uint32(view[q+3])))
			q += 4
			if n >= 0 {
				q += n
				continue
			}
			if n != -1 {
				q = -1
				break
			}
			if metric[f] {
				m-- // a NULL field is not a metric
			}
		}
		if q < 0 || q > len(view) {
			break
		}
		pos, rows, metrics = q, rows+1, metrics+m
	}
	if rows == 0 {
		return false
	}
	sl.begin(s.record+1, 0, s.offset)
	sl.b.Data = append(sl.b.Data, view[:pos]...)
	sl.b.Rows += rows
	sl.b.Metrics += metrics
	s.record += int64(rows)
	if p.multi {
		p.remain -= int64(pos)
	}
	s.consume(pos)
	s.rows += int64(rows - 1)
	s.added(sl)
	return true
}

// pgEnd checks that nothing follows the trailer (or end marker).
func (s *Splitter) pgEnd() error {
	s.pgcopy.ended = true
	if b, err := s.view(1); err != nil {
		return err
	} else if len(b) > 0 {
		return s.pgErr(0, s.offset, "data after the pgcopy trailer")
	}
	return io.EOF
}

// pgTuple walks one tuple of table t and adds it to its pending batch.
func (s *Splitter) pgTuple(t int) error {
	p := &s.pgcopy
	off := s.offset
	record := s.record + 1
	b, err := s.view(2)
	if err != nil {
		return err
	}
	var pos int
	for {
		p.fields, pos, err = pgcopy.Tuple(p.fields[:0], b, s.cfg.MaxRecordBytes)
		short, ok := err.(*pgcopy.ShortError)
		if !ok {
			break
		}
		// The view ends inside the tuple: make it longer, or the input
		// ends there.
		if b, err = s.view(short.Need); err != nil {
			return err
		}
		if len(b) < short.Need {
			switch {
			case short.Field > 0:
				return s.pgErr(record, off, "%s", short)
			case p.multi:
				return s.pgErr(record, off, "frame ends past the end of the input")
			}
			return s.pgErr(0, off, "missing pgcopy trailer (truncated file?)")
		}
	}
	switch {
	case err == io.EOF && !p.multi:
		s.consume(2)
		return s.pgEnd()
	case err == io.EOF:
		return s.pgErr(record, off, "invalid field count -1")
	case err != nil:
		return s.pgErr(record, off, "%s", err)
	}
	metric, tag := p.metric[t], p.tag[t]
	fc := len(p.fields)
	hashTags := s.cfg.Parts > 1
	h := seriesStart(t)
	metrics := 0
	for f, v := range p.fields[:min(fc, len(metric))] {
		switch {
		case v == nil:
		case metric[f]:
			metrics++
		case hashTags && tag[f]:
			h = mixHash(h, v)
		}
	}
	if p.multi {
		if int64(pos) > p.remain {
			return s.pgErr(record, off, "tuple crosses the end of its frame")
		}
		p.remain -= int64(pos)
	}
	s.record++
	if fc != len(metric) {
		s.consume(pos)
		return s.malformed(record, 0, off, nil, true, "%d fields, table %s has %d columns", fc, s.tables[t].Name, len(metric))
	}
	sl := s.slotFor(t, s.part(h))
	sl.begin(record, 0, off)
	sl.b.Data = append(sl.b.Data, b[:pos]...)
	sl.b.Rows++
	sl.b.Metrics += metrics
	s.consume(pos)
	s.added(sl)
	return nil
}

// runBytes caps one fast-path run so the tuples walked are still in the
// CPU cache when they are copied.
const runBytes = 16 << 10
