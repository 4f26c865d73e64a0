// Package tsbs reads the files of TSBS's data generator in its TimescaleDB
// format (tsbs_generate_data --format timescaledb) and writes them as a
// tsload multi-table CSV stream (docs/formats.md) of the tables TSBS's own
// loader (tsbs_load_timescaledb, default flags) creates: a "tags" table of
// the series (id, then one column per tag) and one table per measurement
// (time, tags_id, then the fields), so that load_timescale loads TSBS's
// data sets as they are.
//
// The format: a header of a "tags,<name> <type>,..." line (types string,
// float32, float64, int64, int32), one "<measurement>,<field>,..." line
// per measurement, and a blank line; then two lines per point: the tags
// ("tags,<name>=<value>,...", the header's tags in order) and the values
// ("<measurement>,<nanoseconds>,<value>,...", an empty value NULL). A
// series is its first tag's value (TSBS keys its tags table's cache on
// it); the Reader numbers the series from 1 in the order they first come
// and writes a tags row for each before its first point.
//
// Every refusal names the line and byte offset of the TSBS file: a
// header that is not one, a tags line whose names are not the header's,
// an unknown measurement, a field count other than the header's, a
// timestamp or value that is not a number, a tag value with a control
// character or invalid UTF-8. Tags beyond the header's
// (TSBS stores them as JSON in additional_tags) are refused.
package tsbs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/schema"
)

// Sniff reports whether head, the first bytes of an input, starts a TSBS
// TimescaleDB-format file: "tags," then "<name> <type>" pairs.
func Sniff(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	rest, ok := bytes.CutPrefix(line, []byte("tags,"))
	if !ok {
		return false
	}
	first, _, _ := bytes.Cut(rest, []byte{','})
	name, typ, ok := bytes.Cut(bytes.TrimSpace(first), []byte{' '})
	_, known := tagTypes[string(typ)]
	return ok && len(name) > 0 && known
}

// tagTypes are the header's tag types, as TSBS's loader declares them in
// PostgreSQL (its FLOAT is double precision).
var tagTypes = map[string]schema.Type{
	"string": schema.Text, "float32": schema.Float8, "float64": schema.Float8,
	"int64": schema.Int8, "int32": schema.Int4,
}

// TagsTable is the name of the table of the series.
const TagsTable = "tags"

// Error is a refusal, at a line and byte offset of the TSBS file.
type Error struct {
	Line   int64
	Offset int64
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("line %d (byte offset %d): %s (TSBS timescaledb format)", e.Line, e.Offset, e.Reason)
}

// Reader turns a TSBS file into a tsload multi-table CSV stream.
type Reader struct {
	in     *bufio.Reader
	line   int64 // lines read
	offset int64 // bytes read
	tags   []string
	types  []schema.Type // the tags'
	head   []byte        // the stream's header (#tsload-csv and #table lines)
	tables map[string]*measurement
	order  []string // measurements in header order
	series map[string]int64
	out    []byte
	pos    int
	cur    string // the table of the last #data line
	err    error
}

type measurement struct {
	fields int
}

// NewReader reads the header of r (at most maxLine bytes a line) and
// returns the Reader of the rest.
func NewReader(r io.Reader, maxLine int) (*Reader, error) {
	t := &Reader{in: bufio.NewReaderSize(r, maxLine), tables: map[string]*measurement{}, series: map[string]int64{}}
	if err := t.header(); err != nil {
		return nil, err
	}
	return t, nil
}

// Tables are the tables of the stream: the tags table, then the
// measurements' in the header's order.
func (t *Reader) Tables() []*schema.Table {
	tb := []*schema.Table{t.tagsTable()}
	for _, m := range t.order {
		tb = append(tb, t.measurementTable(m))
	}
	return tb
}

func (t *Reader) tagsTable() *schema.Table { return t.tableOf(TagsTable) }

func (t *Reader) measurementTable(name string) *schema.Table { return t.tableOf(name) }

// tableOf parses the stream's own declaration of a table back (the one
// description of the layout: header()).
func (t *Reader) tableOf(name string) *schema.Table {
	for _, line := range strings.Split(string(t.head), "\n") {
		decl, ok := strings.CutPrefix(line, "#table "+name+" ")
		if !ok {
			continue
		}
		tb := &schema.Table{Name: name}
		for _, cd := range strings.Split(decl, ",") {
			n, ty, _ := strings.Cut(cd, ":")
			st, _ := schema.ParseType(ty)
			tb.Columns = append(tb.Columns, schema.Column{Name: n, Type: st, Tag: name == TagsTable && n != "id"})
		}
		return tb
	}
	return nil
}

// readLine returns the next line without its line end (valid until the
// next read), and its offset.
func (t *Reader) readLine() (line []byte, off int64, err error) {
	off = t.offset
	line, err = t.in.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, off, &Error{Line: t.line + 1, Offset: off, Reason: fmt.Sprintf("line longer than %d bytes", t.in.Size())}
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	if err != nil {
		return nil, off, err
	}
	t.line++
	t.offset += int64(len(line))
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), off, nil
}

func (t *Reader) header() error {
	line, off, err := t.readLine()
	if err == io.EOF {
		return &Error{Line: 1, Offset: 0, Reason: "empty input"}
	}
	if err != nil {
		return err
	}
	if !Sniff(line) {
		return &Error{Line: 1, Offset: off, Reason: `not a tags header ("tags,<name> <type>,...")`}
	}
	out := append([]byte(csv.Magic), '\n')
	out = append(out, "#table "+TagsTable+" id:int4"...)
	for _, f := range bytes.Split(line[len("tags,"):], []byte{','}) {
		name, typ, ok := strings.Cut(strings.TrimSpace(string(f)), " ")
		st, known := tagTypes[typ]
		if !ok || !known || !ident(name) || name == "id" || slices.Contains(t.tags, name) {
			return &Error{Line: 1, Offset: off, Reason: fmt.Sprintf("tag %q: want \"<name> <type>\" with a type of string, float32, float64, int64 or int32, a name once and not id", f)}
		}
		t.tags = append(t.tags, name)
		t.types = append(t.types, st)
		out = append(out, ","+name+":"+st.String()...)
	}
	out = append(out, '\n')
	for {
		line, off, err := t.readLine()
		if err == io.EOF {
			return &Error{Line: t.line + 1, Offset: t.offset, Reason: "the header does not end in a blank line"}
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			break
		}
		cols := strings.Split(string(line), ",")
		if !ident(cols[0]) || cols[0] == TagsTable || t.tables[cols[0]] != nil || len(cols) < 2 {
			return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("measurement line %q: want \"<measurement>,<field>,...\" naming a measurement once", truncate(line))}
		}
		out = append(out, "#table "+cols[0]+" time:timestamptz,tags_id:int4"...)
		seen := map[string]bool{"time": true, "tags_id": true, "additional_tags": true}
		for _, c := range cols[1:] {
			if !ident(c) || seen[c] {
				return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("measurement %s: field name %q (a name, once, not time, tags_id or additional_tags)", cols[0], c)}
			}
			seen[c] = true
			out = append(out, ","+c+":float8"...)
		}
		out = append(out, '\n')
		t.tables[cols[0]] = &measurement{fields: len(cols) - 1}
		t.order = append(t.order, cols[0])
	}
	if len(t.order) == 0 {
		return &Error{Line: t.line, Offset: t.offset, Reason: "the header names no measurement"}
	}
	t.out, t.head = out, append([]byte(nil), out...)
	return nil
}

// Read reads the stream.
func (t *Reader) Read(p []byte) (int, error) {
	for t.pos == len(t.out) {
		if t.err != nil {
			return 0, t.err
		}
		t.out, t.pos = t.out[:0], 0
		for len(t.out) < 64<<10 && t.err == nil {
			mark := len(t.out)
			if t.err = t.point(); t.err != nil {
				t.out = t.out[:mark] // nothing of a refused point
			}
		}
	}
	n := copy(p, t.out[t.pos:])
	t.pos += n
	return n, nil
}

// point converts the next two lines; io.EOF at the end.
func (t *Reader) point() error {
	tags, off, err := t.readLine()
	for err == nil && len(bytes.TrimSpace(tags)) == 0 { // blank lines between points
		tags, off, err = t.readLine()
	}
	if err != nil {
		return err
	}
	rest, ok := bytes.CutPrefix(tags, []byte("tags,"))
	if !ok {
		return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("want a tags line (\"tags,<name>=<value>,...\"), got %q", truncate(tags))}
	}
	vals := bytes.Split(rest, []byte{','})
	if len(vals) != len(t.tags) {
		return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("%d tags, the header has %d (tags beyond the header's are not loaded)", len(vals), len(t.tags))}
	}
	mark := len(t.out)
	var key string
	for i, kv := range vals {
		k, v, ok := bytes.Cut(kv, []byte{'='})
		if !ok || string(k) != t.tags[i] {
			return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("tag %d: want %s=<value>, got %q", i+1, t.tags[i], truncate(kv))}
		}
		if !utf8.Valid(v) || bytes.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("tag %s: %q holds a control character or invalid UTF-8", t.tags[i], truncate(v))}
		}
		if i == 0 {
			key = string(v)
		}
	}
	id, seen := t.series[key]
	if !seen {
		id = int64(len(t.series) + 1)
		t.series[key] = id
		t.data(TagsTable)
		t.out = strconv.AppendInt(t.out, id, 10)
		for i, kv := range vals {
			_, v, _ := bytes.Cut(kv, []byte{'='})
			t.out = append(t.out, ',')
			switch {
			case len(v) == 0 && t.types[i] == schema.Text:
				t.out = append(t.out, `""`...) // an empty text, not NULL
			case len(v) == 0: // NULL
			default:
				t.out = csv.AppendField(t.out, v)
			}
		}
		t.out = append(t.out, '\n')
	}
	row, off, err := t.readLine()
	if err == io.EOF {
		t.out = t.out[:mark]
		return &Error{Line: t.line + 1, Offset: t.offset, Reason: "a tags line without its values line"}
	}
	if err != nil {
		return err
	}
	name, rest, _ := bytes.Cut(row, []byte{','})
	m := t.tables[string(name)]
	if m == nil {
		return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("measurement %q is not in the header", truncate(name))}
	}
	fields := bytes.Split(rest, []byte{','})
	if len(fields) != m.fields+1 {
		return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("%d values, measurement %s has a timestamp and %d fields", len(fields), name, m.fields)}
	}
	ns, err := strconv.ParseInt(string(fields[0]), 10, 64)
	if err != nil {
		return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("timestamp %q is not an integer (nanoseconds)", truncate(fields[0]))}
	}
	t.data(string(name))
	t.out = csv.AppendTime(t.out, ns)
	t.out = append(t.out, ',')
	t.out = strconv.AppendInt(t.out, id, 10)
	for i, f := range fields[1:] {
		t.out = append(t.out, ',')
		if len(f) == 0 {
			continue // NULL
		}
		if x, err := strconv.ParseFloat(string(f), 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return &Error{Line: t.line, Offset: off, Reason: fmt.Sprintf("field %d of %s: %q is not a finite number", i+1, name, truncate(f))}
		}
		t.out = append(t.out, f...)
	}
	t.out = append(t.out, '\n')
	return nil
}

// data switches the stream to table name.
func (t *Reader) data(name string) {
	if t.cur != name {
		t.cur = name
		t.out = append(append(append(t.out, "#data "...), name...), '\n')
	}
}

func ident(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
