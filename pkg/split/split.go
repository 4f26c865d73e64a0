// Package split owns reading load inputs (files, stdin, gzip, zstd, memory
// mapping, who holds the bytes) and cutting them into batches; it owns no
// grammar: each format's is pkg/format/ilp's, pkg/format/csv's or
// pkg/format/pgcopy's.
//
// It opens load inputs (files or stdin, gzip and zstd detected
// from the content, decoded in parallel where the members or frames can be
// found) and cuts them into load.Batches of whole records without decoding
// values: ILP lines, CSV records (quoted newlines respected) and PostgreSQL
// COPY binary tuples (by walking field lengths), including the tsload
// multi-table CSV and pgcopy streams of docs/formats.md.
//
// A Splitter keeps one pending batch per (table, part): a part is the worker
// a series is routed to when Config.Parts > 1, so that every row of a series
// goes to the same worker in input order. Splitting allocates nothing per
// row once the batch buffers have grown.
//
// # What is accepted and what is refused
//
// Every refusal names the input, the record (row) number, the line (ILP and
// CSV) and the byte offset in the decompressed input, e.g.
// "data.csv.gz: record 12 (line 13, byte offset 981): unterminated quoted field".
// Damage to a gzip stream names the compressed byte offset instead.
//
//   - Input: gzip from the magic bytes 1f 8b, any number of members; zstd
//     from 28 b5 2f fd, any number of frames; a truncated member or frame,
//     a bad checksum, corrupt data or bytes after a member or frame that
//     are not another one are errors. An empty input (also an empty gzip) is an
//     error: "empty input (no data)".
//   - Lines and records longer than Config.MaxRecordBytes (4 MiB) are
//     errors; memory stays bounded by that buffer and the batches.
//   - A UTF-8 byte-order mark at the start of an ILP or CSV input is
//     dropped (offsets count it); before a pgcopy signature it is an error.
//   - ILP: CRLF line ends are accepted (batches carry LF); comment ('#') and
//     blank lines are not rows. Refused: no measurement, a tag without
//     key=value, no field, a field without key=value, an unterminated string
//     value, NUL bytes, invalid UTF-8, a timestamp that is not an integer or
//     does not fit int64 nanoseconds. Escaped spaces, commas and equals
//     signs are valid. A line WITHOUT a timestamp is valid (the server then
//     assigns its own time, as line protocol specifies). Field values are
//     not decoded: a bad number is left to the server, which rejects it.
//   - CSV: RFC 4180; quoted fields may hold commas, quotes ("") and
//     newlines; CRLF accepted (a record's final CRLF becomes LF); blank
//     lines are skipped; a record whose every field is empty (",,") is
//     skipped and counted (NoValue, Config.OnSkip). Refused: a field count different from the table's
//     columns, an unterminated quoted field, a quote inside an unquoted
//     field, a character after a closing quote, a bare CR, NUL bytes,
//     invalid UTF-8. Single-table files take the table from Config.Table or
//     the file name, and the column types from the use case's table when
//     the header matches it, else inferred from the first record
//     (a time csv.ParseTime reads, RFC 3339 or PostgreSQL's text form, with
//     an offset or without one, read as UTC => timestamptz; integer => int8,
//     number => float8, else text
//     and a tag). Without either (stdin) the table is the one use-case
//     table whose columns are the header's; none or several is an error
//     asking for --table. A file with only a header is valid and holds no
//     rows.
//     Multi-table streams: "#tsload-csv v1", "#table" lines, "#data"
//     switches; a record before the first #data, an undeclared table, a
//     #table after data or an unknown directive are errors.
//   - pgcopy: the signature, the flags (pgcopy.CheckFlags) and the header
//     extension are checked. A tsload table chunk in the extension declares the table
//     (name, columns, types, tags): Config.Table or the file name then
//     only renames it, and a known table of that name with another column
//     count is an error; without the chunk (plain PostgreSQL COPY output)
//     the table is Config.Table's or the file name's use-case table. Every
//     tuple's field count must equal the table's columns;
//     a length past the end of the input, a missing trailer and any byte
//     after the trailer are errors. Multi-table (TSLCOPY) streams: frame
//     table index in range, tuples wholly inside their frame, the ff ff end
//     marker present and last. Values (including timestamps) are not
//     decoded: the server checks them.
//
// With Config.SkipInvalid a refused record is skipped and counted
// (Skipped) instead, when the record's end is known: an ILP line, a CSV
// record, a pgcopy tuple with the wrong field count. Damage that loses the
// record boundaries (gzip, a pgcopy length past the end, an over-long line)
// always fails.
//
// Batch positions: FirstRecord, FirstLine and Offset are those of the
// batch's first row. Lines of a batch are consecutive input lines only for
// an unrouted (Parts == 1) ILP or single-table CSV input; per-table
// (multi-table streams) and per-part (routed) batches gather rows from
// across the input.
package split

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Defaults of Config.MaxRecordBytes and Config.MaxBatchBytes.
const (
	DefaultMaxRecordBytes = 4 << 20
	DefaultMaxBatchBytes  = 32 << 20
)

// Config configures a Splitter.
type Config struct {
	// Format is the input's format; FormatUnknown detects it from the content.
	Format format.Format
	// Table names the table of a single-table CSV or pgcopy input; empty
	// takes it from the file name (cpu.csv.gz => cpu), else from a pgcopy
	// file's table chunk or a CSV header that is a use-case table's.
	Table string
	// BatchSize is the number of rows per batch (default load.DefaultBatchSize).
	BatchSize int
	// Parts > 1 routes each series (ILP: measurement and tags; CSV and
	// pgcopy: table and tag column values) to one of Parts batches.
	Parts int
	// Limit stops splitting after this many rows (0: no limit).
	Limit int64
	// SkipInvalid skips (and counts) malformed records instead of failing.
	// Structural damage that loses the record boundaries (a truncated
	// pgcopy tuple, an unterminated CSV quote) still fails.
	SkipInvalid bool
	// OnSkip, when set, is called with every record SkipInvalid skips
	// (on the goroutine that skips it: the splitter's, or a Checker's).
	OnSkip func(Skipped)
	// MaxRecordBytes is the longest line or record accepted (default 4 MiB);
	// it is also the input's read buffer size, so memory stays bounded.
	MaxRecordBytes int
	// MaxBatchBytes cuts a batch early when its data reaches this size
	// (default 32 MiB), so that long records cannot make a batch of
	// BatchSize rows unbounded.
	MaxBatchBytes int
	// Lookup returns the schema of a known table (usecase.LookupTable), or nil.
	Lookup func(name string) *schema.Table
	// Columns names the columns of a single-table CSV input without a
	// header: its first line is then a record.
	Columns []string
	// DeferChecks leaves the per-line work of an unrouted ILP input
	// (validation, metric and per-table counts) to the batch's consumer,
	// which calls a split.Checker on it (load.Batch.Unchecked): the
	// splitter then only finds line ends and tells rows from comment and
	// blank lines, so several consumers check in parallel. A memory-mapped
	// file's plain lines are checked by the splitter's own parallel scan
	// instead (pscan.go): those batches come checked. Ignored (the
	// splitter checks) with Parts > 1 (routing reads each line's series
	// key) and with SkipInvalid and a Limit (the limit counts valid rows).
	DeferChecks bool
	// Mapping maps a Parquet file's columns (parquet.go).
	Mapping load.Mapping
	// ParquetAs is what a Parquet input's rows become: PGCopy tuples or
	// ILP lines (anything else); ParquetReaders is how many row groups
	// are read at once (default 1).
	ParquetAs      format.Format
	ParquetReaders int
}

func (c *Config) defaults() {
	if c.BatchSize <= 0 {
		c.BatchSize = load.DefaultBatchSize
	}
	if c.Parts <= 0 {
		c.Parts = 1
	}
	if c.MaxRecordBytes <= 0 {
		c.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if c.MaxBatchBytes <= 0 {
		c.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if c.Lookup == nil {
		c.Lookup = func(string) *schema.Table { return nil }
	}
}

// MalformedError is a record the splitter refused.
type MalformedError struct {
	Source string
	Record int64 // 1-based record (row) number; 0 when not known
	Line   int64 // 1-based line number (ILP and CSV); 0 for pgcopy
	Offset int64 // byte offset in the decompressed input
	Reason string
}

func (e *MalformedError) Error() string {
	switch {
	case e.Record > 0 && e.Line > 0:
		return fmt.Sprintf("%s: record %d (line %d, byte offset %d): %s", e.Source, e.Record, e.Line, e.Offset, e.Reason)
	case e.Record > 0:
		return fmt.Sprintf("%s: record %d (byte offset %d): %s", e.Source, e.Record, e.Offset, e.Reason)
	case e.Line > 0:
		return fmt.Sprintf("%s: line %d (byte offset %d): %s", e.Source, e.Line, e.Offset, e.Reason)
	}
	return fmt.Sprintf("%s: byte offset %d: %s", e.Source, e.Offset, e.Reason)
}

// IsMalformed reports whether err is (or wraps) a *MalformedError.
func IsMalformed(err error) bool {
	var m *MalformedError
	return errors.As(err, &m)
}

// slot is one pending batch: one table (CSV, pgcopy) and one part.
type slot struct {
	b     load.Batch
	table int // index in Splitter.tables (-1 for ILP)
	part  int
	ready bool
	// z, when set, holds the batch's bytes so far in the input's read
	// buffer (zero-copy, see take); b.Data is empty then.
	z span
}

// size is the number of bytes of the slot's batch.
func (sl *slot) size() int { return len(sl.b.Data) + sl.z.end - sl.z.start }

// take adds the complete lines p, found at index at of chunk c's buf (c
// nil: in the scratch buffer), to sl's batch: without a copy when the
// batch is empty or its bytes so far end where p starts in the same chunk
// (the batch then holds c until its Release), else copied.
func (s *Splitter) take(sl *slot, p []byte, c *raChunk, at int) {
	switch {
	case sl.z.c != nil && sl.z.c == c && sl.z.end == at:
		sl.z.end += len(p)
		return
	case sl.z.c == nil && len(sl.b.Data) == 0 && c != nil:
		c.hold()
		sl.z = span{c: c, start: at, end: at + len(p)}
		return
	}
	s.own(sl)
	s.grow(sl, len(p))
	sl.b.Data = append(sl.b.Data, p...)
}

// grow makes room for n more bytes in sl's batch: when it must grow, once
// for the rest of the batch (at the size of its rows so far, within
// MaxBatchBytes and 8 MiB), not by append's steps line after line (a
// batch copied from a zero-copy span or from the parallel scan goes on
// line by line).
func (s *Splitter) grow(sl *slot, n int) {
	d := sl.b.Data
	if len(d)+n <= cap(d) || sl.b.Rows == 0 {
		return
	}
	rest := max(s.cfg.BatchSize-sl.b.Rows, 1) * (len(d)/sl.b.Rows + 1)
	sl.b.Data = slices.Grow(d, max(min(rest, s.cfg.MaxBatchBytes-len(d), 8<<20), 0)+n)
}

// keepSpare keeps a batch buffer handed back while its slot had one.
func (s *Splitter) keepSpare(buf []byte) {
	if cap(buf) > 0 && len(s.spare) < 4 {
		s.spare = append(s.spare, buf[:0])
	}
}

// takeSpare returns buf, or a kept buffer when buf has no room at all.
func (s *Splitter) takeSpare(buf []byte) []byte {
	if cap(buf) == 0 && len(s.spare) > 0 {
		buf = s.spare[len(s.spare)-1]
		s.spare = s.spare[:len(s.spare)-1]
	}
	return buf
}

// own copies the bytes of sl's batch that are in a chunk into the batch's
// own buffer, so that more can be appended.
func (s *Splitter) own(sl *slot) {
	if sl.z.c == nil {
		return
	}
	sl.b.Data = append(s.takeSpare(sl.b.Data)[:0], sl.z.bytes()...)
	sl.z.release()
}

// Splitter cuts one Input into batches.
type Splitter struct {
	in     *Input
	cfg    Config
	format format.Format
	tables []*schema.Table // tables known from the input's header (nil for ILP)
	slots  []*slot
	ready  []*slot // full batches, in the order they filled
	done   bool
	flush  int // next slot to flush after done

	rows    int64 // rows cut
	record  int64 // records seen (rows + skipped)
	line    int64 // lines consumed
	offset  int64 // decompressed bytes consumed
	skipped int64
	bom     int // length of the byte-order mark skipped at the start

	step func() error // reads one record (or directive) into a slot

	// spare holds batch buffers handed back while their slot had one:
	// own and emit reuse them (zero-copy batches come back without one).
	spare [][]byte

	ilp    ilpState
	csv    csvState
	pgcopy pgcopyState
	ps     pscanState
	pq     *parquetState
}

// New reads the input's header (detecting the format when cfg.Format is
// FormatUnknown) and returns a Splitter positioned at the first record.
func New(in *Input, cfg Config) (*Splitter, error) {
	cfg.defaults()
	s := &Splitter{in: in, cfg: cfg, format: cfg.Format}
	if ok, err := s.initParquet(); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := s.skipBOM(); err != nil {
		return nil, err
	}
	detected, err := in.Detect()
	if err != nil {
		return nil, err
	}
	if s.format == format.Unknown {
		s.format = detected
	} else if detected == format.PGCopy && s.format != format.PGCopy {
		return nil, fmt.Errorf("%s: --format %s given but the input starts with a pgcopy signature", in.Source, s.format)
	} else if detected == format.ILP && s.format == format.CSV {
		// Its first line read as a CSV header would name a table and
		// columns that make no sense (issue 43 item 15).
		return nil, fmt.Errorf("%s: --format csv given but the input looks like line protocol (its first line has a space and then '=', as a line's fields do): drop --format to detect it, or pass --format ilp", in.Source)
	}
	switch s.format {
	case format.ILP:
		err = s.initILP()
	case format.CSV:
		err = s.initCSV()
	case format.PGCopy:
		err = s.initPGCopy()
	default:
		err = fmt.Errorf("%s: unknown format", in.Source)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// utf8BOM is the UTF-8 byte-order mark some editors and exporters write
// at the start of a text file.
const utf8BOM = "\xef\xbb\xbf"

// skipBOM drops a UTF-8 byte-order mark at the start of a text input (it
// is no part of the first record: left in, it would become part of an ILP
// measurement's or the CSV header's first name); the byte offsets count
// it. Before a pgcopy signature it is an error: a binary format has none,
// and the file was likely converted as text.
func (s *Splitter) skipBOM() error {
	head, _ := s.in.br.Peek(len(utf8BOM) + len(tslcopyMagic))
	if !bytes.HasPrefix(head, []byte(utf8BOM)) {
		return nil
	}
	if s.format == format.PGCopy || DetectBytes(head[len(utf8BOM):]) == format.PGCopy {
		return &MalformedError{Source: s.in.Source, Reason: "UTF-8 byte-order mark before the pgcopy signature (a binary file has none: was it converted as text?)"}
	}
	s.in.br.Discard(len(utf8BOM))
	s.offset, s.bom = int64(len(utf8BOM)), len(utf8BOM)
	return nil
}

// Format is the input's format.
func (s *Splitter) Format() format.Format { return s.format }

// Tables are the tables the input's header declares (multi-table streams),
// or the one table of a single-table CSV or pgcopy input; nil for ILP.
func (s *Splitter) Tables() []*schema.Table { return s.tables }

// Rows is the number of rows cut so far.
func (s *Splitter) Rows() int64 { return s.rows }

// Skipped is the number of records skipped: malformed ones
// (Config.SkipInvalid) and rows without a value (NoValue).
func (s *Splitter) Skipped() int64 {
	if s.pq != nil {
		return s.skipped + s.pq.skipped.Load()
	}
	return s.skipped
}

// Bytes is the number of decompressed input bytes consumed.
func (s *Splitter) Bytes() int64 { return s.offset }

// Next fills b with the next batch and returns the part (worker) it belongs
// to. It returns io.EOF after the last batch. b's Data and Tables buffers
// are swapped with the splitter's, so both sides reuse their memory; b's
// Seq is left to the caller.
func (s *Splitter) Next(b *load.Batch) (part int, err error) {
	if s.in.ra != nil && s.in.ra.mm != nil {
		// A mapped input truncated under the reader: its error, not a
		// crash, nor the error of the zeros it reads up to the end of
		// the page it now ends in, nor an end of input (changed.go).
		old := debug.SetPanicOnFault(true)
		defer func() {
			debug.SetPanicOnFault(old)
			err = faultError(recover(), err)
			if err != nil {
				if ce := s.in.ra.mm.shrunk(); ce != nil {
					err = ce
				}
			}
		}()
	}
	if s.pq != nil {
		return s.nextParquet(b)
	}
	for {
		if len(s.ready) > 0 {
			sl := s.ready[0]
			copy(s.ready, s.ready[1:])
			s.ready = s.ready[:len(s.ready)-1]
			s.emit(sl, b)
			return sl.part, nil
		}
		if s.done {
			for s.flush < len(s.slots) {
				sl := s.slots[s.flush]
				s.flush++
				if sl != nil && sl.b.Rows > 0 {
					s.emit(sl, b)
					return sl.part, nil
				}
			}
			return 0, io.EOF
		}
		if s.cfg.Limit > 0 && s.rows >= s.cfg.Limit {
			s.done = true
			continue
		}
		if err := s.step(); err != nil {
			if err == io.EOF {
				s.done = true
				continue
			}
			return 0, s.checkPending(err)
		}
	}
}

// checkPending checks the pending batch of a splitter with deferred checks
// that stops on err: a malformed line before the point of err is the
// error to report (as when the splitter checks), and lines skipped there
// are counted.
func (s *Splitter) checkPending(err error) error {
	if !s.ilp.deferred || len(s.slots) == 0 || s.slots[0] == nil || s.slots[0].b.Rows == 0 {
		return err
	}
	s.own(s.slots[0])
	b := &s.slots[0].b
	b.Format = format.ILP
	var c Checker
	c.OnSkip = s.cfg.OnSkip
	n, cerr := c.Check(b, s.cfg.SkipInvalid)
	s.skipped += int64(n)
	if cerr != nil {
		return cerr
	}
	return err
}

// emit moves slot sl's batch into b and resets sl with b's old buffers
// (a zero-copy batch leaves the slot its own buffer and gets its bytes in
// the chunk, with the chunk as b.Hold). A b still holding a chunk (a
// caller that did not Release it) is released first.
func (s *Splitter) emit(sl *slot, b *load.Batch) {
	b.Release()
	p := &sl.b
	data, tables := b.Data[:0], b.Tables[:0]
	if sl.z.c != nil {
		s.keepSpare(data)
		data = p.Data[:0]
		p.Data, p.Hold = sl.z.bytes(), sl.z.c // the slot's hold is the batch's now
		sl.z = span{}
	} else if p.Hold != nil { // cut from the scanned segments (pscan)
		s.keepSpare(data)
		data = nil
	} else {
		data = s.takeSpare(data)
	}
	*b = *p
	p.Hold = nil
	b.Format = s.format
	if sl.table >= 0 {
		tables = append(tables, load.TableRows{Name: s.tables[sl.table].Name, Rows: int64(p.Rows)})
		b.Tables, tables = tables, p.Tables[:0]
		b.Table = s.tables[sl.table]
	}
	p.Data, p.Tables = data, tables
	p.Rows, p.Metrics = 0, 0
	sl.ready = false
}

// slotFor returns the pending batch of table t (-1 for ILP) and part.
func (s *Splitter) slotFor(t, part int) *slot {
	i := part
	if t >= 0 {
		i = t*s.cfg.Parts + part
	}
	if i >= len(s.slots) {
		s.slots = append(s.slots, make([]*slot, i+1-len(s.slots))...)
	}
	sl := s.slots[i]
	if sl == nil {
		sl = &slot{table: t, part: part}
		sl.b.Source = s.in.Source
		s.slots[i] = sl
	}
	return sl
}

// begin records where a slot's batch starts, when it is empty.
func (sl *slot) begin(record, line, offset int64) {
	if sl.b.Rows == 0 {
		sl.b.FirstRecord, sl.b.FirstLine, sl.b.Offset = record, line, offset
	}
}

// added marks sl ready when it holds a full batch.
func (s *Splitter) added(sl *slot) {
	s.rows++
	if (sl.b.Rows >= s.cfg.BatchSize || sl.size() >= s.cfg.MaxBatchBytes || (s.cfg.Limit > 0 && s.rows >= s.cfg.Limit)) && !sl.ready {
		sl.ready = true
		s.ready = append(s.ready, sl)
	}
}

// malformed returns the error for the current record, or nil (after
// counting it) when SkipInvalid is set and the record can be skipped.
func (s *Splitter) malformed(record, line, offset int64, raw []byte, skippable bool, format string, args ...any) error {
	if skippable && s.cfg.SkipInvalid {
		s.skipped++
		if s.cfg.OnSkip != nil {
			s.cfg.OnSkip(Skipped{Source: s.in.Source, Record: record, Line: line, Offset: offset, Raw: raw, Reason: fmt.Sprintf(format, args...)})
		}
		return nil
	}
	return &MalformedError{Source: s.in.Source, Record: record, Line: line, Offset: offset, Reason: fmt.Sprintf(format, args...)}
}

// NoValue is the Reason of a Skipped row that holds no value to load:
// a CSV record whose every field is empty (any loader), or a row whose
// every field (not the time, not a tag) is empty or NULL, written as line
// protocol, where a line needs a field (issue 43 item 13). Such a row is
// skipped whatever SkipInvalid says and counted as skipped, so that
// verification proves the rows that were loaded.
const NoValue = "no value to load (every field is empty or NULL): skipped"

// Skipped is a record skipped as malformed (Config.OnSkip).
type Skipped struct {
	Source               string
	Record, Line, Offset int64  // as in MalformedError (Line 0 for pgcopy)
	Raw                  []byte // the ILP line (no line end); nil for csv and pgcopy; valid during the call only
	Reason               string
}

// tableName is the single-table CSV/pgcopy table: Config.Table, else the
// file's base name without .gz/.zst/.csv/.bin/.pgcopy.
func (s *Splitter) tableName() (string, error) {
	if s.cfg.Table != "" {
		return s.cfg.Table, nil
	}
	if s.in.Source != "stdin" {
		name := filepath.Base(s.in.Source)
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
		for _, ext := range []string{".csv", ".bin", ".pgcopy"} {
			name = strings.TrimSuffix(name, ext)
		}
		if validIdent(name) {
			return name, nil
		}
	}
	return "", fmt.Errorf("%s: cannot tell the table from the input's name: pass --table", s.in.Source)
}

// tableByColumns returns the one use-case table (usecase.TableNames, the
// schemas from Config.Lookup) whose column names are cols, in order; else
// nil and why: no table or several match.
func (s *Splitter) tableByColumns(cols []string) (*schema.Table, string) {
	var found []*schema.Table
	for _, name := range usecase.TableNames() {
		t := s.cfg.Lookup(name)
		if t == nil || len(t.Columns) != len(cols) {
			continue
		}
		same := true
		for i, c := range t.Columns {
			if c.Name != cols[i] {
				same = false
				break
			}
		}
		if same {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return found[0], ""
	case 0:
		return nil, "its columns are those of no use-case table"
	}
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.Name
	}
	return nil, "its columns are those of tables " + strings.Join(names, ", ")
}

// validIdent reports whether name matches [A-Za-z_][A-Za-z0-9_]*.
func validIdent(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// hashSeed is shared by every splitter of the process, so a series found
// in several inputs of one run goes to the same part.
var hashSeed = maphash.MakeSeed()

// seriesStart is the hash of a series key before its parts are mixed in.
func seriesStart(table int) uint64 { return uint64(table)*0x9e3779b97f4a7c15 + 1 }

// mixHash adds one part of a series key (a tag value) to h.
func mixHash(h uint64, b []byte) uint64 {
	return (h ^ maphash.Bytes(hashSeed, b)) * 0x100000001b3
}

func (s *Splitter) part(h uint64) int {
	if s.cfg.Parts <= 1 {
		return 0
	}
	return int(h % uint64(s.cfg.Parts))
}

// metricColumns marks the columns that count as metrics (not time, not tag).
func metricColumns(t *schema.Table) []bool {
	m := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		m[i] = i > 0 && !c.Tag
	}
	return m
}

func tagColumns(t *schema.Table) []bool {
	m := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		m[i] = c.Tag
	}
	return m
}

// Release gives back what the batches not handed out yet hold of the
// input (a pending batch pointing into its read buffer or mapping), when
// the splitter is abandoned before io.EOF: after a failed batch, or an
// error. The splitter must not be used afterwards.
func (s *Splitter) Release() {
	if s.pq != nil {
		s.pq.close()
	}
	s.releasePscan()
	for _, sl := range s.slots {
		if sl != nil {
			sl.z.release()
		}
	}
	s.done, s.flush, s.ready = true, len(s.slots), nil
}

// SetLimit makes the splitter stop after n more rows (n <= 0: none).
func (s *Splitter) SetLimit(n int64) {
	if n <= 0 {
		s.done = true
		return
	}
	s.cfg.Limit = s.rows + n
}
