package split

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	csvformat "github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/schema"
)

// csvState is the CSV splitter's state.
type csvState struct {
	multi   bool
	cur     int // current table (multi-table stream), -1 before the first #data
	metric  [][]bool
	tag     [][]bool
	scratch []byte // a record that spans lines
	sc      csvformat.Scanner
}

// readRaw returns the next line including its '\n' (none on a last line
// without one), valid until the next read.
func (s *Splitter) readRaw() ([]byte, error) {
	line, err := s.in.br.ReadSlice('\n')
	switch {
	case err == nil:
		return line, nil
	case err == io.EOF:
		if len(line) == 0 {
			return nil, io.EOF
		}
		return line, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, &MalformedError{Source: s.in.Source, Record: s.record + 1, Line: s.line + 1, Offset: s.offset,
			Reason: fmt.Sprintf("record longer than the %d-byte limit", s.cfg.MaxRecordBytes)}
	}
	return nil, err
}

func (s *Splitter) initCSV() error {
	c := &s.csv
	c.cur = -1
	line, err := s.readRaw()
	if err == io.EOF {
		return fmt.Errorf("%s: empty input (no data)", s.in.Source)
	}
	if err != nil {
		return err
	}
	s.line++
	s.offset += int64(len(line))
	first := trimEOL(line)
	var saved []byte // the first record, when there is no header
	if string(first) == string(csvMagic) {
		c.multi = true
		if err := s.readCSVTables(); err != nil {
			return err
		}
	} else {
		header := first
		if len(s.cfg.Columns) > 0 {
			saved = append([]byte(nil), line...) // the header's reading may move the buffer
			header = []byte(strings.Join(s.cfg.Columns, ","))
		}
		if err := s.csvSingleTable(header); err != nil {
			return err
		}
		c.cur = 0
	}
	for _, t := range s.tables {
		c.metric = append(c.metric, metricColumns(t))
		c.tag = append(c.tag, tagColumns(t))
	}
	s.step = s.stepCSV
	if saved != nil && len(first) > 0 {
		// No header: the first line is the first record.
		s.line--
		s.offset -= int64(len(saved))
		s.record++
		return s.csvRecord(saved, 1, s.offset)
	}
	return nil
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// readCSVTables reads the "#table" lines of a multi-table stream, stopping
// before the first line that is not one.
func (s *Splitter) readCSVTables() error {
	for {
		peek, _ := s.in.br.Peek(7)
		if !bytes.HasPrefix(peek, []byte("#table ")) {
			break
		}
		off := s.offset
		line, err := s.readRaw()
		if err != nil {
			return err
		}
		s.line++
		s.offset += int64(len(line))
		t, reason := parseTableDirective(string(trimEOL(line)), s.cfg.Lookup)
		if reason != "" {
			return &MalformedError{Source: s.in.Source, Line: s.line, Offset: off, Reason: reason}
		}
		for _, o := range s.tables {
			if o.Name == t.Name {
				return &MalformedError{Source: s.in.Source, Line: s.line, Offset: off, Reason: fmt.Sprintf("table %q declared twice", t.Name)}
			}
		}
		s.tables = append(s.tables, t)
	}
	if len(s.tables) == 0 {
		return &MalformedError{Source: s.in.Source, Line: s.line + 1, Offset: s.offset, Reason: "multi-table CSV stream declares no table (#table lines)"}
	}
	return nil
}

// parseTableDirective parses "#table <name> <col>:<type>,...". The tag
// flags come from the known table when its columns match, else every text
// column is a tag.
func parseTableDirective(line string, lookup func(string) *schema.Table) (*schema.Table, string) {
	parts := strings.Fields(strings.TrimPrefix(line, "#table "))
	if len(parts) != 2 || !validIdent(parts[0]) {
		return nil, "malformed #table line (want \"#table <name> <col>:<type>,...\")"
	}
	t := &schema.Table{Name: parts[0]}
	for _, cd := range strings.Split(parts[1], ",") {
		name, typ, ok := strings.Cut(cd, ":")
		if !ok || !validIdent(name) {
			return nil, fmt.Sprintf("malformed column %q in #table %s", cd, t.Name)
		}
		ty, err := schema.ParseType(typ)
		if err != nil {
			return nil, fmt.Sprintf("#table %s: %v", t.Name, err)
		}
		t.Columns = append(t.Columns, schema.Column{Name: name, Type: ty, Tag: ty == schema.Text})
	}
	if known := lookup(t.Name); known != nil && sameColumns(known, t, true) {
		return known, ""
	}
	return t, ""
}

// sameColumns reports whether a and b have the same column names (and
// types when withTypes).
func sameColumns(a, b *schema.Table, withTypes bool) bool {
	if len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].Name != b.Columns[i].Name || (withTypes && a.Columns[i].Type != b.Columns[i].Type) {
			return false
		}
	}
	return true
}

// csvSingleTable sets the table of a single-table CSV from its header. The
// table is Config.Table when given; else the one use-case table whose columns
// are the header's (so data.csv.gz holding cpu rows loads into cpu); else the
// file's name. Its types are the known table's when the columns match, else
// inferred from the first record.
func (s *Splitter) csvSingleTable(header []byte) error {
	cols := csvformat.Values(header)
	if s.cfg.Table == "" {
		if t, _ := s.tableByColumns(cols); t != nil {
			s.tables = []*schema.Table{t}
			return nil
		}
	}
	name, err := s.tableName()
	if err != nil {
		_, reason := s.tableByColumns(cols)
		return fmt.Errorf("%s: cannot tell the table from the input's name or its header (%s): pass --table", s.in.Source, reason)
	}
	t := &schema.Table{Name: name}
	for _, c := range cols {
		if c == "" {
			return &MalformedError{Source: s.in.Source, Line: 1, Offset: 0, Reason: "empty column name in the CSV header"}
		}
		t.Columns = append(t.Columns, schema.Column{Name: c, Type: schema.Text})
	}
	if known := s.cfg.Lookup(name); known != nil && sameColumns(known, t, false) {
		s.tables = []*schema.Table{known}
		return nil
	}
	// Infer from the first record (its first line).
	// Read on only until the line is whole (a stream typed in is not
	// held until 64 KiB).
	peek, _ := s.in.br.Peek(s.in.br.Buffered())
	for limit := min(detectLimit, s.in.br.size); bytes.IndexByte(peek, '\n') < 0 && len(peek) < limit; {
		more, err := s.in.br.Peek(len(peek) + 1)
		peek = more
		if err != nil {
			break
		}
		peek, _ = s.in.br.Peek(min(s.in.br.Buffered(), limit))
	}
	if i := bytes.IndexByte(peek, '\n'); i >= 0 {
		peek = peek[:i+1]
	}
	vals := csvformat.Values(peek)
	for i := range t.Columns {
		v := ""
		if i < len(vals) {
			v = vals[i]
		}
		t.Columns[i].Type = inferType(v, i == 0)
		t.Columns[i].Tag = t.Columns[i].Type == schema.Text
	}
	s.tables = []*schema.Table{t}
	return nil
}

// inferType guesses a column type from one value (a time as
// csvformat.ParseTime reads it).
func inferType(v string, first bool) schema.Type {
	if _, err := csvformat.ParseTime([]byte(v), 0); err == nil {
		return schema.Timestamp
	}
	if v == "" && first {
		return schema.Timestamp
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return schema.Int8
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return schema.Float8
	}
	return schema.Text
}

func (s *Splitter) stepCSV() error {
	c := &s.csv
	for {
		line, err := s.readRaw()
		if err != nil {
			return err
		}
		off, lineNo := s.offset, s.line+1
		if len(bytes.TrimRight(line, "\r\n")) == 0 { // blank line: not a record
			s.line++
			s.offset += int64(len(line))
			continue
		}
		if c.multi && line[0] == '#' {
			s.line++
			s.offset += int64(len(line))
			if err := s.csvDirective(trimEOL(line), lineNo, off); err != nil {
				return err
			}
			continue
		}
		s.record++
		if c.cur < 0 {
			return &MalformedError{Source: s.in.Source, Record: s.record, Line: lineNo, Offset: off, Reason: "record before the first #data line"}
		}
		return s.csvRecord(line, lineNo, off)
	}
}

// csvRecord scans one record starting with line, reading more lines while
// a quoted field stays open, and adds it to its table's pending batch.
func (s *Splitter) csvRecord(line []byte, lineNo, off int64) error {
	c := &s.csv
	t := c.cur
	sc := &c.sc
	metric := c.metric[t]
	hashTags := s.cfg.Parts > 1
	sc.Spans, sc.Count = hashTags, metric
	sc.Reset()
	rec := line
	lines := int64(1)
	virtual := false // a '\n' added after a last line without one
	if !sc.Scan(rec) {
		c.scratch = append(c.scratch[:0], line...)
		for {
			if len(c.scratch) > 0 && c.scratch[len(c.scratch)-1] != '\n' { // input ended
				c.scratch = append(c.scratch, '\n')
				virtual = true
				if sc.Scan(c.scratch) {
					break
				}
				s.line += lines
				s.offset += int64(len(c.scratch) - 1)
				return s.malformed(s.record, lineNo, off, nil, true, "unterminated quoted field")
			}
			more, err := s.readRaw()
			if err == io.EOF {
				c.scratch = append(c.scratch, '\n')
				virtual = true
				if sc.Scan(c.scratch) {
					break
				}
				s.line += lines
				s.offset += int64(len(c.scratch) - 1)
				return s.malformed(s.record, lineNo, off, nil, true, "unterminated quoted field")
			}
			if err != nil {
				return err
			}
			lines++
			if len(c.scratch)+len(more) > s.cfg.MaxRecordBytes {
				return &MalformedError{Source: s.in.Source, Record: s.record, Line: lineNo, Offset: off,
					Reason: fmt.Sprintf("record longer than the %d-byte limit", s.cfg.MaxRecordBytes)}
			}
			c.scratch = append(c.scratch, more...)
			if sc.Scan(c.scratch) {
				break
			}
		}
		rec = c.scratch
	}
	consumed := len(rec)
	if virtual {
		consumed--
	}
	s.line += lines
	s.offset += int64(consumed)
	reason := sc.Reason
	if reason == "" && sc.N != len(metric) {
		reason = fmt.Sprintf("%d fields, table %s has %d columns", sc.N, s.tables[t].Name, len(metric))
	}
	if reason == "" && !sc.ValidUTF8(rec) {
		reason = "invalid UTF-8"
	}
	if reason != "" {
		return s.malformed(s.record, lineNo, off, nil, true, "%s", reason)
	}
	if len(bytes.Trim(rec[:sc.End], ",\r")) == 0 {
		// Every field empty: not a row of anything (NoValue), the same
		// for every loader. The batch is cut before it, so that a batch's
		// rows stay consecutive records (InOrder).
		s.skipped++
		if s.cfg.OnSkip != nil {
			s.cfg.OnSkip(Skipped{Source: s.in.Source, Record: s.record, Line: lineNo, Offset: off, Reason: NoValue})
		}
		if s.cfg.Parts <= 1 {
			if sl := s.slotFor(t, 0); sl.b.Rows > 0 && !sl.ready {
				sl.ready = true
				s.ready = append(s.ready, sl)
			}
		}
		return nil
	}
	h := seriesStart(t)
	if hashTags {
		tag := c.tag[t]
		for f, fd := range sc.Fields {
			if tag[f] {
				h = mixHash(h, rec[fd.Start:fd.End])
			}
		}
	}
	metrics := sc.Counted
	sl := s.slotFor(t, s.part(h))
	sl.begin(s.record, lineNo, off)
	sl.b.Data = append(append(sl.b.Data, rec[:sc.End]...), '\n')
	sl.b.Rows++
	sl.b.Metrics += metrics
	s.added(sl)
	return nil
}

// csvDirective handles a '#' line of a multi-table stream after the header.
func (s *Splitter) csvDirective(line []byte, lineNo, off int64) error {
	if name, ok := bytes.CutPrefix(line, []byte("#data ")); ok {
		for i, t := range s.tables {
			if t.Name == string(name) {
				s.csv.cur = i
				return nil
			}
		}
		return &MalformedError{Source: s.in.Source, Line: lineNo, Offset: off, Reason: fmt.Sprintf("#data names undeclared table %q", name)}
	}
	if bytes.HasPrefix(line, []byte("#table ")) {
		return &MalformedError{Source: s.in.Source, Line: lineNo, Offset: off, Reason: "#table line after data"}
	}
	return &MalformedError{Source: s.in.Source, Line: lineNo, Offset: off, Reason: fmt.Sprintf("unknown directive %q", truncate(line, 40))}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
