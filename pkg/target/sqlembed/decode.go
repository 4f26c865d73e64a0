package sqlembed

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/records"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// group is the rows of one table of a batch, in the table's column order.
type group struct {
	table *schema.Table
	rows  [][]driver.Value
}

// decoder turns batches into groups; one per Writer, its buffers reused.
type decoder struct {
	groups  []group
	byName  map[string]int // index in groups of the current batch
	slab    []driver.Value
	records records.Reader
	points  ilp.PointReader
	texts   texts
}

// texts holds each text value seen (a tag's values repeat row after row)
// boxed once: a row then shares the value instead of copying its bytes and
// boxing them again, the two allocations per text field that a profile of
// a cpu-only load showed. Bounded: cleared when full.
type texts map[string]driver.Value

// maxTexts bounds a decoder's texts; beyond it the values are not shared.
const maxTexts = 1 << 15

func (m *texts) value(b []byte) driver.Value {
	if v, ok := (*m)[string(b)]; ok { // no allocation: the compiler looks the bytes up
		return v
	}
	if *m == nil || len(*m) >= maxTexts {
		*m = make(texts, 1024)
	}
	s := string(b)
	v := driver.Value(s)
	(*m)[s] = v
	return v
}

func (d *decoder) reset() {
	for i := range d.groups {
		d.groups[i] = group{}
	}
	d.groups = d.groups[:0]
	clear(d.byName)
	if d.byName == nil {
		d.byName = map[string]int{}
	}
	d.slab = d.slab[:0]
}

// row returns a fresh row of n values from the slab.
func (d *decoder) row(n int) []driver.Value {
	if cap(d.slab)-len(d.slab) < n {
		d.slab = make([]driver.Value, 0, max(4096, 2*n))
	}
	r := d.slab[len(d.slab) : len(d.slab)+n]
	d.slab = d.slab[:len(d.slab)+n]
	clear(r)
	return r
}

func (d *decoder) group(tb *schema.Table) *group {
	i, ok := d.byName[tb.Name]
	if !ok {
		i = len(d.groups)
		d.groups = append(d.groups, group{table: tb})
		d.byName[tb.Name] = i
	}
	return &d.groups[i]
}

// decode decodes b; an error names the input line or record.
func (d *decoder) decode(ctx context.Context, t *Target, s *session, b *load.Batch) ([]group, error) {
	d.reset()
	var err error
	switch b.Format {
	case format.ILP:
		err = d.ilp(ctx, t, s, b)
	case format.CSV:
		err = d.tabular(ctx, t, s, b, false)
	case format.PGCopy:
		err = d.tabular(ctx, t, s, b, true)
	default:
		err = fmt.Errorf("cannot load %s input", b.Format)
	}
	if err != nil {
		return nil, err
	}
	return d.groups, nil
}

// ilp decodes line protocol; a measurement no table is known for is
// created from its first line (tags text, fields by their kind).
func (d *decoder) ilp(ctx context.Context, t *Target, s *session, b *load.Batch) error {
	return d.points.Read(b.Data, b.Source, b.FirstLine, func(p *ilp.Point, where func(error) error) error {
		var tb *schema.Table
		if i, ok := d.byName[string(p.Measurement)]; ok { // the batch's lines name few tables
			tb = d.groups[i].table
		} else {
			var err error
			if tb, err = t.table(ctx, s, string(p.Measurement), p.Table(string(p.Measurement))); err != nil {
				return err
			}
		}
		row := d.row(len(tb.Columns))
		row[0] = t.eng.Time(p.Time.UnixNano())
		for _, tg := range p.Tags {
			i := columnIndex(tb, tg.Key)
			if i < 0 {
				return where(fmt.Errorf("table %q has no column %q", tb.Name, tg.Key))
			}
			v, err := d.textValue(tb.Columns[i].Type, tg.Value)
			if err != nil {
				return where(fmt.Errorf("tag %q: %v", tg.Key, err))
			}
			row[i] = v
		}
		for _, f := range p.Fields {
			i := columnIndex(tb, f.Key)
			if i < 0 {
				return where(fmt.Errorf("table %q has no column %q", tb.Name, f.Key))
			}
			v, err := fieldValue(tb.Columns[i].Type, f.Value)
			if err != nil {
				return where(fmt.Errorf("field %q: %v", f.Key, err))
			}
			row[i] = v
		}
		g := d.group(tb)
		g.rows = append(g.rows, row)
		return nil
	})
}

func columnIndex(tb *schema.Table, name []byte) int {
	for i, c := range tb.Columns {
		if c.Name == string(name) {
			return i
		}
	}
	return -1
}

// tabular decodes CSV records or pgcopy tuples of b.Table into the
// database's table of that name, matching columns by name.
func (d *decoder) tabular(ctx context.Context, t *Target, s *session, b *load.Batch, binaryCopy bool) error {
	if b.Table == nil {
		return errors.New(b.Source + ": a CSV or pgcopy batch without its table")
	}
	tb, err := t.table(ctx, s, b.Table.Name, b.Table)
	if err != nil {
		return err
	}
	in := b.Table.Columns
	at := make([]int, len(in))
	for i, c := range in {
		at[i] = columnIndex(tb, []byte(c.Name))
		if at[i] < 0 {
			return fmt.Errorf("%s: table %q has no column %q", b.Source, tb.Name, c.Name)
		}
	}
	// The table's time column is NOT NULL (Target.ddl): the database
	// would refuse a row without one, but at the batch's commit, naming
	// the batch; this names the input, or the record.
	notNull := len(tb.Columns) > 0 && tb.Columns[0].Type == schema.Timestamp
	if notNull && !slices.Contains(at, 0) {
		return fmt.Errorf("%s: no column %q in the input: the table's time column, NOT NULL", b.Source, tb.Columns[0].Name)
	}
	g := d.group(tb)
	return d.records.Read(b.Data, b.Format, b.Table, b.Source, b.FirstRecord, b.Offset, func(fields [][]byte, where func(error) error) error {
		row := d.row(len(tb.Columns))
		for i, f := range fields {
			if f == nil {
				continue
			}
			var v driver.Value
			var err error
			typ := tb.Columns[at[i]].Type
			switch {
			case binaryCopy && in[i].Type == schema.Text && typ == schema.Text:
				v = d.texts.value(f)
			case binaryCopy:
				v, err = binaryValue(t.eng, in[i].Type, typ, f)
			case typ == schema.Timestamp:
				var ns int64
				ns, err = records.Time(format.CSV, f)
				v = t.eng.Time(ns)
			default:
				v, err = d.textValue(typ, f)
			}
			if err != nil {
				return where(fmt.Errorf("column %q: %v", in[i].Name, err))
			}
			row[at[i]] = v
		}
		if notNull && row[0] == nil {
			return where(fmt.Errorf("column %q is NULL: the table's time column is NOT NULL", tb.Columns[0].Name))
		}
		g.rows = append(g.rows, row)
		return nil
	})
}

// textValue is textValue with a text column's values shared (texts).
func (d *decoder) textValue(t schema.Type, b []byte) (driver.Value, error) {
	if t == schema.Text {
		return d.texts.value(b), nil
	}
	return textValue(t, b)
}

// textValue parses text (a CSV field, an ILP tag) as a column of type t.
func textValue(t schema.Type, b []byte) (driver.Value, error) {
	switch t {
	case schema.Float8, schema.Float4:
		f, err := parseFloat(b)
		if t == schema.Float4 {
			return float32(f), err
		}
		return f, err
	case schema.Int8, schema.Int4:
		n, err := parseInt(b, t)
		return n, err
	}
	return string(b), nil
}

func parseFloat(b []byte) (float64, error) {
	f, ok := ilp.ParseFloat(b)
	if !ok {
		return 0, fmt.Errorf("%q is not a number", b)
	}
	return f, nil
}

func parseInt(b []byte, t schema.Type) (int64, error) {
	var n int64
	neg := false
	s := b
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, fmt.Errorf("%q is not an integer", b)
	}
	for _, c := range s {
		if c < '0' || c > '9' || n > (math.MaxInt64-9)/10 {
			return 0, fmt.Errorf("%q is not an integer of 64 bits", b)
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	if t == schema.Int4 && (n > math.MaxInt32 || n < math.MinInt32) {
		return 0, fmt.Errorf("%d is out of range for a 32-bit integer", n)
	}
	return n, nil
}

// fieldValue converts an ILP field to a column of type t.
func fieldValue(t schema.Type, v lineprotocol.Value) (driver.Value, error) {
	return ilp.ColumnValue(t, v)
}

// binaryValue decodes a COPY binary field of type in for a column of type t.
func binaryValue(eng Engine, in, t schema.Type, f []byte) (driver.Value, error) {
	if in == t && len(f) == 8 { // the common cases, boxed once
		switch t {
		case schema.Float8:
			return math.Float64frombits(binary.BigEndian.Uint64(f)), nil
		case schema.Int8:
			return int64(binary.BigEndian.Uint64(f)), nil
		}
	}
	bad := func() error { return fmt.Errorf("%d bytes for a %s value", len(f), in) }
	var num any
	switch in {
	case schema.Timestamp:
		ns, err := records.Time(format.PGCopy, f)
		if err != nil {
			return nil, err
		}
		if t != schema.Timestamp {
			return nil, fmt.Errorf("a timestamp into a %s column", t)
		}
		return eng.Time(ns), nil
	case schema.Float8:
		if len(f) != 8 {
			return nil, bad()
		}
		num = math.Float64frombits(binary.BigEndian.Uint64(f))
	case schema.Float4:
		if len(f) != 4 {
			return nil, bad()
		}
		num = float64(math.Float32frombits(binary.BigEndian.Uint32(f)))
	case schema.Int8:
		if len(f) != 8 {
			return nil, bad()
		}
		num = int64(binary.BigEndian.Uint64(f))
	case schema.Int4:
		if len(f) != 4 {
			return nil, bad()
		}
		num = int64(int32(binary.BigEndian.Uint32(f)))
	default:
		if t != schema.Text {
			return textValue(t, f)
		}
		return string(f), nil
	}
	switch x := num.(type) {
	case float64:
		switch t {
		case schema.Float8:
			return x, nil
		case schema.Float4:
			return float32(x), nil
		}
	case int64:
		switch t {
		case schema.Int8, schema.Int4:
			return x, nil
		case schema.Float8:
			return float64(x), nil
		case schema.Float4:
			return float32(x), nil
		}
	}
	return nil, fmt.Errorf("a %s value into a %s column", in, t)
}
