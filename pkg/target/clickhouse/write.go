package clickhouse

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"syscall"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/records"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// NewWriter returns worker's writer; its INSERTs take connections of the target's pool.
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if _, err := t.open(ctx); err != nil {
		return nil, err
	}
	return &Writer{t: t}, nil
}

// Writer writes batches, one INSERT per table of a batch.
type Writer struct {
	t   *Target
	dec decoder
}

// Close releases nothing: the connections are the target's.
func (w *Writer) Close() error { return nil }

// Write decodes b (an error naming the line or record when a value does not fit its column)
// and sends each table's rows in one INSERT.
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	groups, err := w.dec.decode(ctx, w.t, b)
	if err != nil {
		return load.Ack{}, err
	}
	conn, err := w.t.open(ctx)
	if err != nil {
		return load.Ack{}, err
	}
	written := 0
	for _, g := range groups {
		if err := w.send(ctx, conn, g); err != nil {
			err = fmt.Errorf("clickhouse: %s: inserting %d rows into %q: %w", b.Where(), len(g.rows), g.table.schema.Name, err)
			if written > 0 && !w.t.cfg.Dedup {
				// The tables before were written: a re-send would store their rows twice.
				return load.Ack{}, fmt.Errorf("%w (%d rows of the batch in other tables were written: the tables hold part of it)", asFatal(err), written)
			}
			return load.Ack{}, err
		}
		written += len(g.rows)
	}
	return load.Ack{Rows: b.Rows}, nil
}

func (w *Writer) send(ctx context.Context, conn backend, g group) error {
	return conn.insert(ctx, g.table, g.rows)
}

// asFatal unwraps a retryable error.
func asFatal(err error) error {
	if load.IsRetryable(err) {
		return errors.New(err.Error())
	}
	return err
}

// Server exceptions that say a re-send may succeed.
var retryCodes = map[int32]bool{
	159: true, // TIMEOUT_EXCEEDED
	202: true, // TOO_MANY_SIMULTANEOUS_QUERIES
	241: true, // MEMORY_LIMIT_EXCEEDED
	252: true, // TOO_MANY_PARTS
}

// classify makes err retryable when a re-send may succeed: a lost, refused or timed-out
// connection, or one of retryCodes; any other server exception is fatal.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		if retryCodes[ex.Code] {
			return load.Retryable(err)
		}
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ch.ErrAcquireConnTimeout) {
		return load.Retryable(err)
	}
	return err
}

// group is the rows of one table of a batch, in the table's column order.
type group struct {
	table *table
	rows  [][]any
}

// decoder turns batches into groups; one per Writer, its buffers reused.
type decoder struct {
	groups  []group
	byName  map[string]int
	slab    []any
	records records.Reader
	points  ilp.PointReader
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

// row returns a fresh row of n values from the slab: a NULL everywhere a Nullable column
// gets no value, ” where a tag (String) gets none.
func (d *decoder) row(tb *table) []any {
	n := len(tb.schema.Columns)
	if cap(d.slab)-len(d.slab) < n {
		d.slab = make([]any, 0, max(4096, 2*n))
	}
	r := d.slab[len(d.slab) : len(d.slab)+n]
	d.slab = d.slab[:len(d.slab)+n]
	for i := range r {
		if tb.nullable[i] {
			r[i] = nil
		} else {
			r[i] = zero(tb.schema.Columns[i].Type)
		}
	}
	return r
}

// zero is what a non-Nullable column holds when a row gives no value.
func zero(t schema.Type) any {
	switch t {
	case schema.Float8:
		return float64(0)
	case schema.Float4:
		return float32(0)
	case schema.Int8:
		return int64(0)
	case schema.Int4:
		return int32(0)
	}
	return ""
}

func (d *decoder) group(tb *table) *group {
	i, ok := d.byName[tb.schema.Name]
	if !ok {
		i = len(d.groups)
		d.groups = append(d.groups, group{table: tb})
		d.byName[tb.schema.Name] = i
	}
	return &d.groups[i]
}

func (d *decoder) decode(ctx context.Context, t *Target, b *load.Batch) ([]group, error) {
	d.reset()
	var err error
	switch b.Format {
	case format.ILP:
		err = d.ilp(ctx, t, b)
	case format.CSV, format.PGCopy:
		err = d.tabular(ctx, t, b)
	default:
		err = fmt.Errorf("clickhouse: cannot load %s input", b.Format)
	}
	if err != nil {
		return nil, err
	}
	return d.groups, nil
}

// timeValue is ns as the time column of tb stores it, or an error when it would not keep
// it: a fraction of a second in a DateTime, a time outside the type's range.
func timeValue(tb *table, ns int64) (any, error) {
	if tb.timeUnit >= 1e9 {
		if ns%1e9 != 0 {
			return nil, fmt.Errorf("time %s has a fraction of a second: the column %q is %s, whole seconds (a ClickHouse before 20.1 has no DateTime64); "+
				"load whole seconds, or use a server that has DateTime64", time.Unix(0, ns).UTC().Format(time.RFC3339Nano), tb.schema.Columns[0].Name, tb.types[0])
		}
		if s := ns / 1e9; s < 0 || s > math.MaxUint32 {
			return nil, fmt.Errorf("time %s is outside the range of the column %q (%s: 1970 to 2106)", time.Unix(0, ns).UTC().Format(time.RFC3339), tb.schema.Columns[0].Name, tb.types[0])
		}
	} else if ns%tb.timeUnit != 0 {
		return nil, fmt.Errorf("time %s is finer than the column %q keeps (%s)", time.Unix(0, ns).UTC().Format(time.RFC3339Nano), tb.schema.Columns[0].Name, tb.types[0])
	}
	return time.Unix(0, ns).UTC(), nil
}

func columnIndex(tb *schema.Table, name []byte) int {
	for i, c := range tb.Columns {
		if c.Name == string(name) {
			return i
		}
	}
	return -1
}

// ilp decodes line protocol; a measurement no table is known for is created from its first
// line (tags String, fields by their kind).
func (d *decoder) ilp(ctx context.Context, t *Target, b *load.Batch) error {
	return d.points.Read(b.Data, b.Source, b.FirstLine, func(p *ilp.Point, where func(error) error) error {
		var tb *table
		if i, ok := d.byName[string(p.Measurement)]; ok {
			tb = d.groups[i].table
		} else {
			var err error
			if tb, err = t.table(ctx, string(p.Measurement), p.Table(string(p.Measurement))); err != nil {
				return err
			}
		}
		row := d.row(tb)
		tv, err := timeValue(tb, p.Time.UnixNano())
		if err != nil {
			return where(err)
		}
		row[0] = tv
		cols := tb.schema.Columns
		for _, tg := range p.Tags {
			i := columnIndex(tb.schema, tg.Key)
			if i < 0 {
				return where(fmt.Errorf("table %q has no column %q", tb.schema.Name, tg.Key))
			}
			v, err := textValue(cols[i].Type, tg.Value)
			if err != nil {
				return where(fmt.Errorf("tag %q: %v", tg.Key, err))
			}
			row[i] = v
		}
		for _, f := range p.Fields {
			i := columnIndex(tb.schema, f.Key)
			if i < 0 {
				return where(fmt.Errorf("table %q has no column %q", tb.schema.Name, f.Key))
			}
			v, err := fieldValue(cols[i].Type, f.Value)
			if err == nil {
				err = t.storable(v)
			}
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

// tabular decodes CSV records or pgcopy tuples of b.Table into the table of that name,
// matching columns by name.
func (d *decoder) tabular(ctx context.Context, t *Target, b *load.Batch) error {
	if b.Table == nil {
		return errors.New(b.Source + ": a CSV or pgcopy batch without its table")
	}
	tb, err := t.table(ctx, b.Table.Name, b.Table)
	if err != nil {
		return err
	}
	in := b.Table.Columns
	at := make([]int, len(in))
	for i, c := range in {
		at[i] = columnIndex(tb.schema, []byte(c.Name))
		if at[i] < 0 {
			return fmt.Errorf("%s: table %q has no column %q", b.Source, tb.schema.Name, c.Name)
		}
	}
	g := d.group(tb)
	rec := 0
	return d.records.Read(b.Data, b.Format, b.Table, b.Source, b.FirstRecord, b.Offset, func(fields [][]byte, outer func(error) error) error {
		rec++
		where := func(err error) error { return outer(csvLine(b, rec, err)) }
		row := d.row(tb)
		for i, f := range fields {
			if f == nil {
				if at[i] == 0 {
					return where(fmt.Errorf("column %q: no time", in[i].Name))
				}
				continue
			}
			var v any
			var err error
			typ := tb.schema.Columns[at[i]].Type
			switch {
			case typ == schema.Timestamp:
				var ns int64
				if ns, err = records.Time(b.Format, f); err == nil {
					v, err = timeValue(tb, ns)
				}
			case b.Format == format.PGCopy:
				v, err = binaryValue(in[i].Type, typ, f)
			default:
				v, err = textValue(typ, f)
			}
			if err == nil {
				err = t.storable(v)
			}
			if err != nil {
				return where(fmt.Errorf("column %q: %v", in[i].Name, err))
			}
			row[at[i]] = v
		}
		g.rows = append(g.rows, row)
		return nil
	})
}

// storable refuses a value the engine would not store as sent: chDB reads a
// subnormal float (5e-324) as 0, the native server keeps it.
func (t *Target) storable(v any) error {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
		if f != 0 && math.Abs(f) < math.SmallestNonzeroFloat32*(1<<23) {
			return t.subnormal(f)
		}
		return nil
	default:
		return nil
	}
	if f != 0 && math.Abs(f) < 0x1p-1022 {
		return t.subnormal(f)
	}
	return nil
}

func (t *Target) subnormal(f float64) error {
	if t.cfg.DBPath == "" {
		return nil
	}
	return fmt.Errorf("%g is a subnormal float, which chDB reads as 0", f)
}

// csvLine adds the input line to an error of the rec-th record (1-based) of a CSV batch
// whose records are one line each (no quoted line breaks), where the line is certain.
func csvLine(b *load.Batch, rec int, err error) error {
	if b.Format != format.CSV || b.FirstLine <= 0 || bytes.Count(b.Data, []byte{'\n'}) != b.Rows {
		return err
	}
	return fmt.Errorf("input line %d: %w", b.FirstLine+int64(rec)-1, err)
}

// textValue parses text (a CSV field, an ILP tag) as a column of type t.
func textValue(t schema.Type, b []byte) (any, error) {
	switch t {
	case schema.Float8, schema.Float4:
		f, ok := ilp.ParseFloat(b)
		if !ok {
			return nil, fmt.Errorf("%q is not a number", b)
		}
		if t == schema.Float4 {
			return float32(f), nil
		}
		return f, nil
	case schema.Int8, schema.Int4:
		bits := 64
		if t == schema.Int4 {
			bits = 32
		}
		n, err := strconv.ParseInt(string(b), 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer of %d bits", b, bits)
		}
		if t == schema.Int4 {
			return int32(n), nil
		}
		return n, nil
	case schema.Text:
		return string(b), nil
	}
	return nil, fmt.Errorf("the column's type is not one tsload writes")
}

// fieldValue converts an ILP field to a column of type t (an Int32
// column takes an int32).
func fieldValue(t schema.Type, v lineprotocol.Value) (any, error) {
	switch t {
	case schema.Float8, schema.Float4, schema.Int8, schema.Int4, schema.Text:
	default:
		return nil, fmt.Errorf("a %v into a column of a type tsload does not write", v.Kind())
	}
	x, err := ilp.ColumnValue(t, v)
	if n, ok := x.(int64); ok && t == schema.Int4 {
		return int32(n), nil
	}
	return x, err
}

// binaryValue decodes a COPY binary field of type in for a column of type t.
func binaryValue(in, t schema.Type, f []byte) (any, error) {
	bad := func() error { return fmt.Errorf("%d bytes for a %s value", len(f), in) }
	var fv float64
	var iv int64
	isInt := false
	switch in {
	case schema.Float8:
		if len(f) != 8 {
			return nil, bad()
		}
		fv = math.Float64frombits(binary.BigEndian.Uint64(f))
	case schema.Float4:
		if len(f) != 4 {
			return nil, bad()
		}
		fv = float64(math.Float32frombits(binary.BigEndian.Uint32(f)))
	case schema.Int8:
		if len(f) != 8 {
			return nil, bad()
		}
		iv, isInt = int64(binary.BigEndian.Uint64(f)), true
	case schema.Int4:
		if len(f) != 4 {
			return nil, bad()
		}
		iv, isInt = int64(int32(binary.BigEndian.Uint32(f))), true
	case schema.Timestamp:
		return nil, fmt.Errorf("a timestamp into a %s column", t)
	default:
		return textValue(t, f)
	}
	switch {
	case isInt && t == schema.Int8:
		return iv, nil
	case isInt && t == schema.Int4:
		if iv > math.MaxInt32 || iv < math.MinInt32 {
			return nil, fmt.Errorf("%d is out of range for a 32-bit integer", iv)
		}
		return int32(iv), nil
	case isInt:
		fv = float64(iv)
	}
	switch t {
	case schema.Float8:
		return fv, nil
	case schema.Float4:
		return float32(fv), nil
	}
	return nil, fmt.Errorf("a %s value into a %s column", in, t)
}
