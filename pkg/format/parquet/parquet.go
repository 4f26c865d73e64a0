// Package parquet reads and writes Apache Parquet files as tsload tables:
// it maps a file's columns to a table (timestamp, tags, fields) by their
// Parquet logical types, turns the rows of a row group into format.Rows for
// the ilp and pgcopy encoders, and writes the generator's tables as
// Parquet (Writer). The Parquet grammar itself is
// github.com/parquet-go/parquet-go's.
//
// # Mapping
//
// A file is one table. Its columns become, by default:
//   - the time: the first TIMESTAMP column (MILLIS, MICROS or NANOS, the
//     logical type or the legacy TIMESTAMP_MILLIS/MICROS annotation; or
//     INT96, the Julian day and the nanoseconds of the day, as Spark and
//     pandas with use_deprecated_int96_timestamps write times), or
//     Options.TimeColumn (a TIMESTAMP column, or an INT32/INT64 column read
//     in Options.TimeUnit);
//   - tags: the tags of the known table of that name (Options.Lookup: a
//     use case's) when the file has its columns with its types, else every
//     STRING or ENUM column; Options.Tags instead when not nil (STRING,
//     ENUM or signed integer columns). A text column that is not a tag is
//     refused: tsload carries text only as tags;
//   - fields: DOUBLE => float8, FLOAT => float4 (as its shortest decimal:
//     0.1, not 0.10000000149011612), INT64 => int8, INT32 =>
//     int4 (unsigned INT(32) => int8), in the file's order.
//
// Nulls are NULL (pgcopy) or omitted (ILP). Any other column (BOOLEAN,
// BYTE_ARRAY without a string type, DECIMAL, DATE, UINT64, nested
// and repeated columns) is refused when the file is opened, naming the
// column and its type, so nothing is sent.
package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// Magic starts and ends every Parquet file.
const Magic = "PAR1"

// Options say how a file's columns map to a table (see the package doc).
type Options struct {
	// Table names the table.
	Table string
	// TimeColumn is the timestamp column (empty: the first TIMESTAMP one).
	TimeColumn string
	// TimeUnit is the unit of an integer TimeColumn: a second, millisecond,
	// microsecond or nanosecond (format.ParseEpochUnit).
	TimeUnit time.Duration
	// Tags are the tag columns (nil: every STRING or ENUM column).
	Tags []string
	// Lookup returns a known table of that name (a use case's), or nil:
	// when its columns are the file's, with the same types and tags, the
	// table keeps its column order (a Parquet writer may sort them).
	Lookup func(name string) *schema.Table
}

// kind is how one column's values are read.
type kind uint8

const (
	kTime   kind = iota
	kTime96      // INT96: nanoseconds of the day, then the Julian day
	kText
	kFloat8
	kFloat4
	kInt8
	kInt4
	kUint4 // unsigned 32-bit, as int8
)

// column is one column of the table and where the file has it.
type column struct {
	leaf int // leaf column index in the file
	kind kind
	// scale converts a time value to nanoseconds.
	scale int64
}

// File is an opened Parquet file.
type File struct {
	source string
	f      *pq.File
	table  *schema.Table
	info   format.TableInfo
	time   column
	tags   []column // in the table's tag order
	fields []column // in the table's field order
	starts []int64  // the first row (0-based) of each row group
}

// Open reads the footer of a Parquet file of size bytes and maps its
// columns to a table. Errors name the source; a file whose end is not
// the Parquet magic is refused as truncated before the library reads it.
func Open(r io.ReaderAt, size int64, source string, o Options) (*File, error) {
	if err := checkEnds(r, size); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	f, err := openFile(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", source, err)
	}
	pf := &File{source: source, f: f}
	if err := pf.mapColumns(o); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := pf.checkChunks(r, size); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	var at int64
	for _, rg := range f.RowGroups() {
		pf.starts = append(pf.starts, at)
		at += rg.NumRows()
	}
	return pf, nil
}

// openFile is pq.OpenFile, with a panic of the library on a damaged
// footer turned into an error.
func openFile(r io.ReaderAt, size int64) (f *pq.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("damaged footer (the Parquet reader failed: %v)", p)
		}
	}()
	return pq.OpenFile(r, size, pq.SkipPageIndex(true), pq.SkipBloomFilters(true), pq.ReadBufferSize(1<<20))
}

// checkEnds checks the magic at both ends: a file cut short loses its
// footer (the schema and where every row group lies), and nothing of it
// can be read.
func checkEnds(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("truncated Parquet file: %d bytes, shorter than the magic and a footer", size)
	}
	var head, tail [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	if string(head[:]) != Magic {
		return fmt.Errorf("not a Parquet file (no %s magic at its start)", Magic)
	}
	if _, err := r.ReadAt(tail[:], size-4); err != nil {
		return err
	}
	if string(tail[:]) != Magic {
		return fmt.Errorf("truncated Parquet file: no %s magic at its end (byte offset %d), so its footer (the schema and the row groups' places) is missing", Magic, size-4)
	}
	return nil
}

// maxChunk bounds a column chunk's uncompressed size: the reader holds a
// page of it at a time, and a damaged footer must not make it allocate
// without bound.
const maxChunk = 4 << 30

// checkChunks checks that every column chunk lies inside the file, has a
// value per row and pages that fit in it (checkPages), so a damaged file
// fails before any row is sent rather than at its row group, and a
// damaged page header is refused before the library allocates what it
// declares.
func (pf *File) checkChunks(r io.ReaderAt, size int64) error {
	md := pf.f.Metadata()
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 {
			return fmt.Errorf("row group %d: %d rows (damaged footer)", i, rg.NumRows)
		}
		for _, cc := range rg.Columns {
			m := cc.MetaData
			// Every column here is flat (mapColumns refuses the others),
			// so it holds one value, or a NULL, per row.
			if m.NumValues != rg.NumRows {
				return fmt.Errorf("row group %d, column %s: %d values for %d rows (damaged footer)", i, strings.Join(m.PathInSchema, "."), m.NumValues, rg.NumRows)
			}
			if m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > maxChunk {
				return fmt.Errorf("row group %d, column %s: %d bytes uncompressed, more than the %d a column chunk may have here (damaged footer?)", i, strings.Join(m.PathInSchema, "."), m.TotalUncompressedSize, int64(maxChunk))
			}
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			if start < 4 || m.TotalCompressedSize < 0 || start+m.TotalCompressedSize > size {
				return fmt.Errorf("row group %d, column %s: its data (byte offsets %d to %d) is not inside the file of %d bytes (truncated or damaged)",
					i, strings.Join(m.PathInSchema, "."), start, start+m.TotalCompressedSize, size)
			}
			c := chunk{rowGroup: i, column: strings.Join(m.PathInSchema, "."), start: start, end: start + m.TotalCompressedSize,
				total: m.TotalUncompressedSize, values: m.NumValues}
			if _, err := checkPages(r, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Table is the table the file maps to: the time, the tags, the fields.
func (pf *File) Table() *schema.Table { return pf.table }

// NumRows is the number of rows of the file.
func (pf *File) NumRows() int64 { return pf.f.NumRows() }

// NumRowGroups is the number of row groups.
func (pf *File) NumRowGroups() int { return len(pf.starts) }

// RowGroupStart is the 0-based number of the first row of row group i.
func (pf *File) RowGroupStart(i int) int64 { return pf.starts[i] }

// RowGroupRows is the number of rows of row group i.
func (pf *File) RowGroupRows(i int) int64 { return pf.f.RowGroups()[i].NumRows() }

// RowGroupOffset is the byte offset of row group i's first data.
func (pf *File) RowGroupOffset(i int) int64 {
	rg := pf.f.Metadata().RowGroups[i]
	if len(rg.Columns) == 0 {
		return 0
	}
	m := rg.Columns[0].MetaData
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < m.DataPageOffset {
		return m.DictionaryPageOffset
	}
	return m.DataPageOffset
}

// typeName describes a column's Parquet type for messages.
func typeName(n pq.Node) string {
	if !n.Leaf() {
		return "group (nested)"
	}
	t := n.Type()
	s := t.Kind().String()
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		s += " " + lt.String()
	} else if ct := t.ConvertedType(); ct != nil {
		s += fmt.Sprintf(" (converted type %d)", int(*ct))
	}
	if n.Repeated() {
		s = "repeated " + s
	}
	return s
}

// classify returns how a leaf column is read, or ok false.
func classify(n pq.Node) (k kind, scale int64, ok bool) {
	if !n.Leaf() || n.Repeated() {
		return 0, 0, false
	}
	t := n.Type()
	var lt pqformat.LogicalTypeValue
	if l := t.LogicalType(); l != nil {
		lt = l.Value
	}
	ct := t.ConvertedType()
	switch t.Kind() {
	case pq.Int64:
		switch v := lt.(type) {
		case *pqformat.TimestampType:
			if v.Unit.Value == nil {
				return 0, 0, false
			}
			return kTime, int64(v.Unit.Value.Duration()), true
		case *pqformat.IntType:
			if !v.IsSigned {
				return 0, 0, false // UINT64 does not fit int8
			}
			return kInt8, 0, true
		case nil:
			if ct != nil {
				switch *ct {
				case deprecated.TimestampMillis:
					return kTime, 1e6, true
				case deprecated.TimestampMicros:
					return kTime, 1e3, true
				case deprecated.Int64:
					return kInt8, 0, true
				}
				return 0, 0, false
			}
			return kInt8, 0, true
		}
	case pq.Int32:
		switch v := lt.(type) {
		case *pqformat.IntType:
			if !v.IsSigned && v.BitWidth == 32 {
				return kUint4, 0, true
			}
			return kInt4, 0, true
		case nil:
			if ct != nil {
				switch *ct {
				case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Uint8, deprecated.Uint16:
					return kInt4, 0, true
				case deprecated.Uint32:
					return kUint4, 0, true
				}
				return 0, 0, false
			}
			return kInt4, 0, true
		}
	case pq.Int96:
		// Only ever a time: Parquet deprecated INT96 for anything else.
		return kTime96, 1, true
	case pq.Double:
		return kFloat8, 0, lt == nil
	case pq.Float:
		return kFloat4, 0, lt == nil
	case pq.ByteArray:
		switch lt.(type) {
		case *pqformat.StringType, *pqformat.EnumType:
			return kText, 0, true
		case nil:
			if ct != nil && (*ct == deprecated.UTF8 || *ct == deprecated.Enum) {
				return kText, 0, true
			}
		}
	}
	return 0, 0, false
}

// mapColumns builds the table from the file's schema and the options.
func (pf *File) mapColumns(o Options) error {
	type col struct {
		name   string
		node   pq.Node
		k      kind
		scale  int64
		ok     bool
		leaf   int
		isTime bool
		isTag  bool
	}
	var cols []col
	leaf := 0
	for _, fl := range pf.f.Schema().Fields() {
		c := col{name: fl.Name(), node: fl, leaf: leaf}
		c.k, c.scale, c.ok = classify(fl)
		cols = append(cols, c)
		if fl.Leaf() {
			leaf++
		} else {
			leaf += countLeaves(fl)
		}
	}
	// the time column
	ti := -1
	if o.TimeColumn != "" {
		for i, c := range cols {
			if c.name == o.TimeColumn {
				ti = i
			}
		}
		if ti < 0 {
			return fmt.Errorf("no column %q for the time (the columns: %s)", o.TimeColumn, names(cols, func(c col) string { return c.name }))
		}
		c := &cols[ti]
		switch {
		case c.ok && (c.k == kTime || c.k == kTime96):
		case c.ok && (c.k == kInt8 || c.k == kInt4):
			if o.TimeUnit <= 0 || o.TimeUnit > time.Second {
				return fmt.Errorf("time column %q is %s: an integer time needs its unit (s, ms, us or ns), got %v", c.name, typeName(c.node), o.TimeUnit)
			}
			c.k, c.scale = kTime, int64(o.TimeUnit)
		default:
			return fmt.Errorf("time column %q is %s, not a TIMESTAMP or an integer", c.name, typeName(c.node))
		}
	} else {
		for i, c := range cols {
			if c.ok && (c.k == kTime || c.k == kTime96) {
				ti = i
				break
			}
		}
		if ti < 0 {
			return fmt.Errorf("no TIMESTAMP (or INT96) column for the time among %s: name an integer one with --time-column and its unit with --time-unit", names(cols, func(c col) string { return c.name + " " + typeName(c.node) }))
		}
	}
	cols[ti].isTime = true
	if o.Tags == nil && o.Lookup != nil {
		o.Tags = knownTags(o.Lookup(o.Table), cols[ti].name, func(name string) (kind, bool) {
			for _, c := range cols {
				if c.name == name {
					return c.k, c.ok
				}
			}
			return 0, false
		}, len(cols))
	}
	for _, tg := range o.Tags {
		if !slices.ContainsFunc(cols, func(c col) bool { return c.name == tg }) {
			return fmt.Errorf("no column %q for a tag", tg)
		}
	}
	var table schema.Table
	table.Name = o.Table
	table.Columns = append(table.Columns, schema.Column{Name: cols[ti].name, Type: schema.Timestamp})
	pf.time = column{leaf: cols[ti].leaf, kind: cols[ti].k, scale: cols[ti].scale}
	var fieldCols []schema.Column
	for i := range cols {
		c := &cols[i]
		if c.isTime {
			continue
		}
		if !c.ok {
			return fmt.Errorf("column %q is %s, which tsload does not load (it takes TIMESTAMP, STRING/ENUM tags, DOUBLE, FLOAT, INT32 and INT64)", c.name, typeName(c.node))
		}
		c.isTag = c.k == kText
		if o.Tags != nil {
			c.isTag = slices.Contains(o.Tags, c.name)
		}
		if c.isTag {
			var t schema.Type
			switch c.k {
			case kText:
				t = schema.Text
			case kInt4:
				t = schema.Int4
			case kInt8:
				t = schema.Int8
			default:
				return fmt.Errorf("column %q is %s: a tag must be a STRING, ENUM or signed integer column", c.name, typeName(c.node))
			}
			table.Columns = append(table.Columns, schema.Column{Name: c.name, Type: t, Tag: true})
			pf.tags = append(pf.tags, column{leaf: c.leaf, kind: c.k})
			continue
		}
		var t schema.Type
		switch c.k {
		case kText:
			return fmt.Errorf("column %q is %s but not a tag: tsload loads text only as tags", c.name, typeName(c.node))
		case kTime, kTime96:
			return fmt.Errorf("column %q is a second timestamp (%s): tsload loads one time column", c.name, typeName(c.node))
		case kFloat8:
			t = schema.Float8
		case kFloat4:
			t = schema.Float4
		case kInt8, kUint4:
			t = schema.Int8
		case kInt4:
			t = schema.Int4
		}
		fieldCols = append(fieldCols, schema.Column{Name: c.name, Type: t})
		pf.fields = append(pf.fields, column{leaf: c.leaf, kind: c.k})
	}
	if len(fieldCols) == 0 {
		return errors.New("no field columns (every row needs at least one value that is not the time or a tag)")
	}
	table.Columns = append(table.Columns, fieldCols...)
	pf.reorder(&table, o.Lookup)
	infos, err := format.Describe([]*schema.Table{&table})
	if err != nil {
		return err
	}
	pf.table, pf.info = &table, infos[0]
	return nil
}

// reorder puts the table's tags and fields in a known table's order when
// that table has exactly the same columns.
func (pf *File) reorder(t *schema.Table, lookup func(string) *schema.Table) {
	if lookup == nil {
		return
	}
	known := lookup(t.Name)
	if known == nil || len(known.Columns) != len(t.Columns) || known.Columns[0] != t.Columns[0] {
		return
	}
	at := map[string]int{}
	for i, c := range t.Columns {
		at[c.Name] = i
	}
	var tags, fields []column
	for _, c := range known.Columns[1:] {
		i, ok := at[c.Name]
		if !ok || t.Columns[i] != c {
			return
		}
		if c.Tag {
			tags = append(tags, pf.tags[i-1])
		} else {
			fields = append(fields, pf.fields[i-1-len(pf.tags)])
		}
	}
	pf.tags, pf.fields = tags, fields
	t.Columns = slices.Clone(known.Columns)
}

// knownTags returns the tags of table t (a use case's) when the file's
// columns are t's, with the types t has (kindOf gives a column's), else
// nil (the default: the STRING columns).
func knownTags(t *schema.Table, timeCol string, kindOf func(string) (kind, bool), ncols int) []string {
	if t == nil || len(t.Columns) != ncols || t.Columns[0].Name != timeCol {
		return nil
	}
	want := map[schema.Type]kind{schema.Text: kText, schema.Float8: kFloat8, schema.Float4: kFloat4, schema.Int8: kInt8, schema.Int4: kInt4}
	tags := []string{}
	for _, c := range t.Columns[1:] {
		k, ok := kindOf(c.Name)
		if !ok || want[c.Type] != k || c.Type == schema.Timestamp {
			return nil
		}
		if c.Tag {
			tags = append(tags, c.Name)
		}
	}
	return tags
}

func countLeaves(n pq.Node) int {
	if n.Leaf() {
		return 1
	}
	s := 0
	for _, f := range n.Fields() {
		s += countLeaves(f)
	}
	return s
}

func names[T any](xs []T, name func(T) string) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name(x))
	}
	return b.String()
}

// RowError is a row that cannot be loaded (a NULL time).
type RowError struct {
	Source string
	Row    int64 // 1-based row number in the file
	Group  int   // its row group
	Reason string
}

func (e *RowError) Error() string {
	return fmt.Sprintf("%s: row %d (row group %d): %s", e.Source, e.Row, e.Group, e.Reason)
}

// IsParquet reports whether head starts with the Parquet magic.
func IsParquet(head []byte) bool { return bytes.HasPrefix(head, []byte(Magic)) }
