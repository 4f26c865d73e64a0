package tonbo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/records"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Rows cross to the bridge as one little-endian buffer per table and
// batch (bridge/tonbo/src/lib.rs, decode_rows): per row the key (u32
// length, bytes), the time (i64 nanoseconds), then per stored column a
// presence byte and the value (i64; a double's u64 bits; u32 length and
// bytes). The key is the series, each key column as "<length>:<text>" or
// "-" for NULL, then the time as 16 hex digits (the bridge counts series
// as keys less those 16 bytes).

// cell is one value of a row being encoded.
type cell struct {
	set bool
	i   int64
	f   float64
	s   []byte
}

// group is the encoded rows of one table of a batch.
type group struct {
	tb   *table
	buf  []byte
	rows int
}

// encoder turns batches into groups; one per Writer, its buffers reused.
type encoder struct {
	groups  []group
	byName  map[string]int
	cells   []cell
	records records.Reader
	points  ilp.PointReader
	key     []byte
	text    []byte
}

func (e *encoder) reset() {
	for i := range e.groups {
		e.groups[i].tb, e.groups[i].buf, e.groups[i].rows = nil, e.groups[i].buf[:0], 0
	}
	e.groups = e.groups[:0]
	clear(e.byName)
	if e.byName == nil {
		e.byName = map[string]int{}
	}
}

func (e *encoder) group(tb *table) *group {
	i, ok := e.byName[tb.name]
	if !ok {
		i = len(e.groups)
		if i < cap(e.groups) {
			e.groups = e.groups[:i+1]
			e.groups[i].tb = tb
		} else {
			e.groups = append(e.groups, group{tb: tb})
		}
		e.byName[tb.name] = i
	}
	return &e.groups[i]
}

// row returns the cleared cells of a row of tb.
func (e *encoder) row(tb *table) []cell {
	n := len(tb.tb.Columns)
	if cap(e.cells) < n {
		e.cells = make([]cell, n)
	}
	c := e.cells[:n]
	clear(c)
	return c
}

// decode encodes b; an error names the input line or record.
func (e *encoder) decode(ctx context.Context, t *Target, b *load.Batch) ([]group, error) {
	e.reset()
	var err error
	switch b.Format {
	case format.ILP:
		err = e.ilp(t, b)
	case format.CSV:
		err = e.tabular(t, b, false)
	case format.PGCopy:
		err = e.tabular(t, b, true)
	default:
		err = fmt.Errorf("cannot load %s input", b.Format)
	}
	if err != nil {
		return nil, err
	}
	return e.groups, nil
}

// put appends the row of cells (ns its time) to tb's group.
func (e *encoder) put(tb *table, cells []cell, ns int64) {
	key := e.key[:0]
	for _, i := range tb.keyCols {
		c := &cells[i]
		if !c.set {
			key = append(key, '-')
			continue
		}
		e.text = e.text[:0]
		switch tb.kind(i) {
		case 's':
			e.text = append(e.text, c.s...)
		case 'f':
			e.text = strconv.AppendFloat(e.text, c.f, 'g', -1, 64)
		default:
			e.text = strconv.AppendInt(e.text, c.i, 10)
		}
		key = strconv.AppendInt(key, int64(len(e.text)), 10)
		key = append(key, ':')
		key = append(key, e.text...)
	}
	t := uint64(ns) ^ (1 << 63) // sorts as the signed time
	for shift := 60; shift >= 0; shift -= 4 {
		key = append(key, "0123456789abcdef"[(t>>shift)&15])
	}
	e.key = key
	g := e.group(tb)
	buf := binary.LittleEndian.AppendUint32(g.buf, uint32(len(key)))
	buf = append(buf, key...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(ns))
	for i := tb.first; i < len(cells); i++ {
		c := &cells[i]
		if !c.set {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch tb.kinds[i-tb.first] {
		case 's':
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(c.s)))
			buf = append(buf, c.s...)
		case 'f':
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(c.f))
		default:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(c.i))
		}
	}
	g.buf = buf
	g.rows++
}

// kind is column i's kind ('t' for the time).
func (tb *table) kind(i int) byte {
	if i < tb.first {
		return 't'
	}
	return tb.kinds[i-tb.first]
}

// ilp encodes line protocol; a measurement no table is known for is
// created from its first line (tags text, fields by their kind).
func (e *encoder) ilp(t *Target, b *load.Batch) error {
	return e.points.Read(b.Data, b.Source, b.FirstLine, func(p *ilp.Point, where func(error) error) error {
		var tb *table
		if i, ok := e.byName[string(p.Measurement)]; ok { // the batch's lines name few tables
			tb = e.groups[i].tb
		} else {
			var err error
			if tb, err = t.table(string(p.Measurement), p.Table(string(p.Measurement)), true); err != nil {
				return err
			}
		}
		cells := e.row(tb)
		for _, tg := range p.Tags {
			i, ok := tb.byName[string(tg.Key)]
			if !ok || i < tb.first {
				return where(fmt.Errorf("table %q has no column %q", tb.name, tg.Key))
			}
			if err := setText(&cells[i], tb.tb.Columns[i].Type, tg.Value); err != nil {
				return where(fmt.Errorf("tag %q: %v", tg.Key, err))
			}
		}
		for _, f := range p.Fields {
			i, ok := tb.byName[string(f.Key)]
			if !ok || i < tb.first {
				return where(fmt.Errorf("table %q has no column %q", tb.name, f.Key))
			}
			if err := setField(&cells[i], tb.tb.Columns[i].Type, f.Value); err != nil {
				return where(fmt.Errorf("field %q: %v", f.Key, err))
			}
		}
		e.put(tb, cells, p.Time.UnixNano())
		return nil
	})
}

// tabular encodes CSV records or pgcopy tuples of b.Table into the table
// of that name, matching columns by name.
func (e *encoder) tabular(t *Target, b *load.Batch, binaryCopy bool) error {
	if b.Table == nil {
		return errors.New(b.Source + ": a CSV or pgcopy batch without its table")
	}
	tb, err := t.table(b.Table.Name, b.Table, true)
	if err != nil {
		return err
	}
	in := b.Table.Columns
	at := make([]int, len(in))
	for i, c := range in {
		j, ok := tb.byName[c.Name]
		if !ok {
			return fmt.Errorf("%s: table %q has no column %q", b.Source, tb.name, c.Name)
		}
		at[i] = j
	}
	return e.records.Read(b.Data, b.Format, b.Table, b.Source, b.FirstRecord, b.Offset, func(fields [][]byte, where func(error) error) error {
		cells := e.row(tb)
		var ns int64
		for i, f := range fields {
			if f == nil {
				continue
			}
			j := at[i]
			typ := tb.tb.Columns[j].Type
			var err error
			switch {
			case binaryCopy:
				err = setBinary(&cells[j], in[i].Type, typ, f)
			case typ == schema.Timestamp:
				cells[j].i, err = records.Time(format.CSV, f)
				cells[j].set = err == nil
			default:
				err = setText(&cells[j], typ, f)
			}
			if err != nil {
				return where(fmt.Errorf("column %q: %v", in[i].Name, err))
			}
			if j == 0 && tb.first == 1 {
				ns = cells[j].i
			}
		}
		if tb.first == 1 && !cells[0].set {
			return where(fmt.Errorf("no time (column %q is NULL)", tb.tb.Columns[0].Name))
		}
		e.put(tb, cells, ns)
		return nil
	})
}

// setText parses text (a CSV field, an ILP tag) as a column of type t.
func setText(c *cell, t schema.Type, b []byte) error {
	switch t {
	case schema.Float8, schema.Float4:
		f, ok := ilp.ParseFloat(b)
		if !ok {
			return fmt.Errorf("%q is not a number", b)
		}
		if t == schema.Float4 {
			f = float64(float32(f))
		}
		c.f, c.set = f, true
		return nil
	case schema.Int8, schema.Int4, schema.Timestamp:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer of 64 bits", b)
		}
		if t == schema.Int4 && (n > math.MaxInt32 || n < math.MinInt32) {
			return fmt.Errorf("%d is out of range for a 32-bit integer", n)
		}
		c.i, c.set = n, true
		return nil
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("%q is not UTF-8", b)
	}
	c.s, c.set = b, true
	return nil
}

// setField converts an ILP field to a column of type t.
func setField(c *cell, t schema.Type, v lineprotocol.Value) error {
	k := v.Kind()
	switch t {
	case schema.Float8, schema.Float4:
		switch k {
		case lineprotocol.Float:
			c.f = v.FloatV()
		case lineprotocol.Int:
			c.f = float64(v.IntV())
		case lineprotocol.Uint:
			c.f = float64(v.UintV())
		default:
			return fmt.Errorf("a %v into a %s column", k, t)
		}
		if t == schema.Float4 {
			c.f = float64(float32(c.f))
		}
		c.set = true
		return nil
	case schema.Int8, schema.Int4:
		var n int64
		switch k {
		case lineprotocol.Int:
			n = v.IntV()
		case lineprotocol.Uint:
			if v.UintV() > math.MaxInt64 {
				return fmt.Errorf("%d is out of range for a 64-bit integer", v.UintV())
			}
			n = int64(v.UintV())
		case lineprotocol.Bool:
			if v.BoolV() {
				n = 1
			}
		default:
			return fmt.Errorf("a %v into a %s column", k, t)
		}
		if t == schema.Int4 && (n > math.MaxInt32 || n < math.MinInt32) {
			return fmt.Errorf("%d is out of range for a 32-bit integer", n)
		}
		c.i, c.set = n, true
		return nil
	case schema.Text:
		if k == lineprotocol.String {
			c.s = []byte(v.StringV())
		} else {
			c.s = []byte(v.String())
		}
		c.set = true
		return nil
	}
	return fmt.Errorf("a %v into a %s column", k, t)
}

// setBinary decodes a COPY binary field of type in for a column of type t.
func setBinary(c *cell, in, t schema.Type, f []byte) error {
	bad := func() error { return fmt.Errorf("%d bytes for a %s value", len(f), in) }
	var num any
	switch in {
	case schema.Timestamp:
		ns, err := records.Time(format.PGCopy, f)
		if err != nil {
			return err
		}
		if t != schema.Timestamp {
			return fmt.Errorf("a timestamp into a %s column", t)
		}
		c.i, c.set = ns, true
		return nil
	case schema.Float8:
		if len(f) != 8 {
			return bad()
		}
		num = math.Float64frombits(binary.BigEndian.Uint64(f))
	case schema.Float4:
		if len(f) != 4 {
			return bad()
		}
		num = float64(math.Float32frombits(binary.BigEndian.Uint32(f)))
	case schema.Int8:
		if len(f) != 8 {
			return bad()
		}
		num = int64(binary.BigEndian.Uint64(f))
	case schema.Int4:
		if len(f) != 4 {
			return bad()
		}
		num = int64(int32(binary.BigEndian.Uint32(f)))
	default:
		return setText(c, t, f)
	}
	switch x := num.(type) {
	case float64:
		switch t {
		case schema.Float8:
			c.f, c.set = x, true
			return nil
		case schema.Float4:
			c.f, c.set = float64(float32(x)), true
			return nil
		}
	case int64:
		switch t {
		case schema.Int8, schema.Int4:
			c.i, c.set = x, true
			return nil
		case schema.Float8, schema.Float4:
			c.f, c.set = float64(x), true
			if t == schema.Float4 {
				c.f = float64(float32(c.f))
			}
			return nil
		}
	}
	return fmt.Errorf("a %s value into a %s column", in, t)
}
