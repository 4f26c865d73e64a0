package parquet

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/tsload/tsload/pkg/format"
)

// Rows reads the rows of one row group as format.Rows (Table 0). It is
// not safe for concurrent use; each goroutine reading a row group uses
// its own.
//
// It reads column by column: a cursor per column walks that column's
// pages (one decoded page held at a time) and hands out the index of the
// next row's value in the page's (or its dictionary's) typed values, so
// no per-value parquet.Value is built.
type Rows struct {
	pf     *File
	group  int
	time   cursor
	tags   []cursor
	fields []cursor
	next   int64 // 0-based row number (in the file) of the next row
	end    int64
	row    format.Row
	ints   [][]byte // the decimal text of integer tags (ILP writes it)
	num    []byte   // widen's
}

// cursor walks one column chunk's pages.
type cursor struct {
	name  string
	pages pq.Pages
	page  pq.Page
	def   []byte // definition levels (nil: a required column)
	n, i  int    // levels in the page, next level
	v     int    // next value
	idx   []int32
	dict  pq.Dictionary // the dictionary vals were taken from

	i32   []int32
	i64   []int64
	i96   []deprecated.Int96
	f32   []float32
	f64   []float64
	bytes []byte
	offs  []uint32
}

// RowGroup returns a reader of row group g, from its row skip on.
func (pf *File) RowGroup(g int, skip int64) (r *Rows, err error) {
	rg := pf.f.RowGroups()[g]
	r = &Rows{pf: pf, group: g, next: pf.starts[g], end: pf.starts[g] + rg.NumRows()}
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, r.wrap(fmt.Errorf("damaged data (the Parquet reader failed: %v)", p))
		}
	}()
	chunks := rg.ColumnChunks()
	names := pf.f.Schema().Columns()
	open := func(c column) cursor {
		cu := cursor{pages: chunks[c.leaf].Pages()}
		if c.leaf < len(names) {
			cu.name = strings.Join(names[c.leaf], ".")
		}
		return cu
	}
	r.time = open(pf.time)
	for _, c := range pf.tags {
		r.tags = append(r.tags, open(c))
	}
	for _, c := range pf.fields {
		r.fields = append(r.fields, open(c))
	}
	r.row.Tags = make([][]byte, len(pf.tags))
	r.row.TagInt = make([]int64, len(pf.tags))
	r.ints = make([][]byte, len(pf.tags))
	r.row.Float = make([]float64, len(pf.fields))
	r.row.Int = make([]int64, len(pf.fields))
	for ; skip > 0; skip-- {
		if _, err := r.Next(); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// Close releases the row group's readers.
func (r *Rows) Close() error {
	var err error
	for _, c := range r.all() {
		if c.page != nil {
			pq.Release(c.page)
			c.page = nil
		}
		if cerr := c.pages.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	return err
}

func (r *Rows) all() []*cursor {
	cs := []*cursor{&r.time}
	for i := range r.tags {
		cs = append(cs, &r.tags[i])
	}
	for i := range r.fields {
		cs = append(cs, &r.fields[i])
	}
	return cs
}

// Row is the 0-based number in the file of the row Next returns next.
func (r *Rows) Row() int64 { return r.next }

func (r *Rows) wrap(err error) error {
	return fmt.Errorf("%s: row group %d (rows %d-%d): %w", r.pf.source, r.group, r.pf.starts[r.group]+1, r.end, err)
}

// errMissing is a column chunk that ends before its row group's rows.
var errMissing = errors.New("ends early")

// advance moves c to the next row: at is the index of its value in c's
// typed values, or -1 for NULL.
func (c *cursor) advance() (at int, err error) {
	for c.i == c.n {
		if err := c.nextPage(); err != nil {
			return 0, err
		}
	}
	null := c.def != nil && c.def[c.i] == 0
	c.i++
	if null {
		return -1, nil
	}
	at = c.v
	c.v++
	if c.idx != nil {
		if at >= len(c.idx) {
			return 0, errors.New("fewer values than its definition levels say (damaged page)")
		}
		at = int(c.idx[at])
	}
	return at, nil
}

// nextPage reads c's next page. A damaged page can make the library
// panic: that is an error of this column, not a crash.
func (c *cursor) nextPage() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged page (the Parquet reader failed: %v)", p)
		}
	}()
	if c.page != nil {
		pq.Release(c.page)
		c.page = nil
	}
	p, err := c.pages.ReadPage()
	if err == io.EOF {
		return errMissing
	}
	if err != nil {
		return err
	}
	c.page = p
	c.n, c.i, c.v = int(p.NumValues()), 0, 0
	c.def = nil
	if d := p.DefinitionLevels(); d != nil {
		c.def = d
		if len(d) < c.n {
			return errors.New("fewer definition levels than values (damaged page)")
		}
	}
	vals := p.Data()
	c.idx = nil
	if dict := p.Dictionary(); dict != nil {
		c.idx = vals.Int32()
		if dict != c.dict {
			c.dict = dict
			c.take(dict.Page().Data())
		}
	} else {
		c.dict = nil
		c.take(vals)
	}
	return nil
}

// take keeps v's typed values (those of the column's kind).
func (c *cursor) take(v encoding.Values) {
	c.i32, c.i64, c.i96, c.f32, c.f64, c.bytes, c.offs = nil, nil, nil, nil, nil, nil, nil
	switch v.Kind() {
	case encoding.Int96:
		c.i96 = v.Int96()
	case encoding.Int32:
		c.i32 = v.Int32()
	case encoding.Int64:
		c.i64 = v.Int64()
	case encoding.Float:
		c.f32 = v.Float()
	case encoding.Double:
		c.f64 = v.Double()
	case encoding.ByteArray:
		c.bytes, c.offs = v.ByteArray()
	}
}

// Next returns the next row, valid until the following call; io.EOF after
// the last.
func (r *Rows) Next() (*format.Row, error) {
	if r.next >= r.end {
		return nil, io.EOF
	}
	if err := r.fill(); err != nil {
		return nil, err
	}
	r.next++
	return &r.row, nil
}

// widen returns the float64 nearest to the shortest decimal of f:
// float64(f) of a FLOAT 0.1 is 0.10000000149011612, which line protocol
// would carry as that; COPY narrows either back to the same float4.
func (r *Rows) widen(f float32) float64 {
	r.num = strconv.AppendFloat(r.num[:0], float64(f), 'g', -1, 32)
	v, err := strconv.ParseFloat(string(r.num), 64)
	if err != nil { // NaN and the infinities: as they are
		return float64(f)
	}
	return v
}

// colErr names the column and the row of a cursor's error.
func (r *Rows) colErr(c *cursor, err error) error {
	if err == errMissing {
		return r.wrap(fmt.Errorf("column %s ends at row %d, before the row group's last row (damaged)", c.name, r.next))
	}
	return r.wrap(fmt.Errorf("column %s, row %d: %w", c.name, r.next+1, err))
}

// julianEpoch is the Julian day of 1970-01-01.
const julianEpoch = 2440588

// int96Time reads an INT96 time: the nanoseconds of the day (the first 8
// bytes, little-endian) and the Julian day (the last 4), as nanoseconds
// since the Unix epoch; ok false outside int64 nanoseconds.
func int96Time(v deprecated.Int96) (ns int64, ok bool) {
	nanos := uint64(v[1])<<32 | uint64(v[0])
	days := int64(v[2]) - julianEpoch
	const day int64 = 86400e9
	if nanos >= uint64(day) || days > math.MaxInt64/day || days < math.MinInt64/day {
		return 0, false
	}
	ns = days * day
	if ns > math.MaxInt64-int64(nanos) {
		return 0, false
	}
	return ns + int64(nanos), true
}

// fill reads the next row's values.
func (r *Rows) fill() error {
	pf := r.pf
	c := &r.time
	at, err := c.advance()
	if err != nil {
		return r.colErr(c, err)
	}
	if at < 0 {
		return &RowError{Source: pf.source, Row: r.next + 1, Group: r.group, Reason: "the time is NULL"}
	}
	var t int64
	switch {
	case pf.time.kind == kTime96 && at < len(c.i96):
		ns, ok := int96Time(c.i96[at])
		if !ok {
			return &RowError{Source: pf.source, Row: r.next + 1, Group: r.group, Reason: fmt.Sprintf("INT96 time (Julian day %d) does not fit int64 nanoseconds", c.i96[at][2])}
		}
		t = ns
	case pf.time.kind == kTime96:
		return r.colErr(c, errors.New("no such value (damaged page)"))
	case c.i64 != nil && at < len(c.i64):
		t = c.i64[at]
	case c.i32 != nil && at < len(c.i32):
		t = int64(c.i32[at])
	default:
		return r.colErr(c, errors.New("no such value (damaged page)"))
	}
	ns := t * pf.time.scale
	if pf.time.scale != 0 && ns/pf.time.scale != t {
		return &RowError{Source: pf.source, Row: r.next + 1, Group: r.group, Reason: fmt.Sprintf("time %d does not fit int64 nanoseconds", t)}
	}
	r.row.Time = ns
	for i, k := range pf.tags {
		c := &r.tags[i]
		at, err := c.advance()
		if err != nil {
			return r.colErr(c, err)
		}
		if at < 0 {
			r.row.Tags[i] = nil
			continue
		}
		var ok bool
		switch k.kind {
		case kText:
			if ok = at+1 < len(c.offs) && c.offs[at] <= c.offs[at+1] && int(c.offs[at+1]) <= len(c.bytes); ok {
				r.row.Tags[i] = c.bytes[c.offs[at]:c.offs[at+1]:c.offs[at+1]] // valid until the page is released: after this row
			}
		case kInt4:
			if ok = at < len(c.i32); ok {
				r.row.TagInt[i] = int64(c.i32[at])
			}
		default:
			if ok = at < len(c.i64); ok {
				r.row.TagInt[i] = c.i64[at]
			}
		}
		if !ok {
			return r.colErr(c, errors.New("no such value (damaged page)"))
		}
		if k.kind != kText {
			r.ints[i] = strconv.AppendInt(r.ints[i][:0], r.row.TagInt[i], 10)
			r.row.Tags[i] = r.ints[i]
		}
	}
	r.row.Null = 0
	for i, k := range pf.fields {
		c := &r.fields[i]
		at, err := c.advance()
		if err != nil {
			return r.colErr(c, err)
		}
		if at < 0 {
			r.row.Null |= 1 << i
			continue
		}
		ok := false
		switch k.kind {
		case kFloat8:
			if ok = at < len(c.f64); ok {
				r.row.Float[i] = c.f64[at]
			}
		case kFloat4:
			if ok = at < len(c.f32); ok {
				r.row.Float[i] = r.widen(c.f32[at])
			}
		case kInt8:
			if ok = at < len(c.i64); ok {
				r.row.Int[i] = c.i64[at]
			}
		case kInt4:
			if ok = at < len(c.i32); ok {
				r.row.Int[i] = int64(c.i32[at])
			}
		case kUint4:
			if ok = at < len(c.i32); ok {
				r.row.Int[i] = int64(uint32(c.i32[at]))
			}
		}
		if !ok {
			return r.colErr(c, errors.New("no such value (damaged page)"))
		}
	}
	return nil
}
