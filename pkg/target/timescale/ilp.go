package timescale

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// ilpEncoder decodes ILP batches into COPY binary tuples, one buffer per
// table, reused batch after batch.
type ilpEncoder struct {
	tables map[string]*tableEnc
	order  []*tableEnc // tables of the current batch, sorted by name (see encode)
}

// tableEnc accumulates the tuples of one table.
type tableEnc struct {
	ti     *tableInfo
	buf    []byte // tuples
	rows   int
	vbuf   []byte // the current row's values
	starts []int  // per column: offset in vbuf, -1 = NULL
	ends   []int
	fields [][]byte
	seen   bool // resolved for the current batch
}

func (e *tableEnc) setInfo(ti *tableInfo) {
	e.ti = ti
	n := len(ti.t.Columns)
	e.starts = make([]int, n)
	e.ends = make([]int, n)
	e.fields = make([][]byte, n)
}

// errNeedInference stops an encoding pass that met a measurement or a key
// that only inference over the whole batch can place.
var errNeedInference = errors.New("need inference")

// lineError is an ILP record the encoder refused.
type lineError struct {
	record int64 // 1-based within the batch
	line   int64 // 1-based within the batch, 0 when unknown
	err    error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// where names the record in the input.
func (e *lineError) where(b *load.Batch) string {
	if e.line > 0 {
		return fmt.Sprintf("input line %d", b.FirstLine+e.line-1)
	}
	return fmt.Sprintf("input record %d", b.FirstRecord+e.record-1)
}

// encode turns ILP batch b into per-table tuples (e.order). Tables are
// resolved through resolve, which may create them.
//
// x.order is sorted by table name: every batch's transaction writes its
// tables in that one order, so the locks its COPYs take and hold to COMMIT
// (above all the ShareUpdateExclusiveLock with which TimescaleDB creates a
// hypertable's chunk, which conflicts with itself) are taken by every worker
// in the same order and no two transactions can wait on each other in a
// cycle. In first-seen order, two batches starting at different lines of the
// same epochs met the tables in different orders and deadlocked (40P01).
// Within one table a COPY takes one such lock whatever the chunks it creates.
func (x *ilpEncoder) encode(ctx context.Context, b *load.Batch, r resolver) error {
	err := x.pass(ctx, b, r, false)
	if errors.Is(err, errNeedInference) {
		if err := x.infer(ctx, b, r); err != nil {
			return err
		}
		err = x.pass(ctx, b, r, true)
	}
	if err == nil {
		slices.SortFunc(x.order, func(a, b *tableEnc) int { return strings.Compare(a.ti.t.Name, b.ti.t.Name) })
	}
	return err
}

// resolver finds (and creates when needed) the table of a measurement.
type resolver interface {
	// known returns the table if the target knows it or a use case
	// describes it (creating it if needed); nil if neither.
	known(ctx context.Context, name []byte) (*tableInfo, error)
	// current returns the target's published info for a table, nil if none.
	current(name []byte) *tableInfo
	// ensure creates or widens an inferred table.
	ensure(ctx context.Context, t *schema.Table) (*tableInfo, error)
}

func (x *ilpEncoder) reset() {
	for _, e := range x.order {
		e.buf = e.buf[:0]
		e.rows = 0
		e.seen = false
	}
	x.order = x.order[:0]
}

// pass encodes every line of b. Before inference (final=false) a line of an
// unknown table, or with a key an inferred table lacks, returns
// errNeedInference.
func (x *ilpEncoder) pass(ctx context.Context, b *load.Batch, r resolver, final bool) error {
	x.reset()
	if x.tables == nil {
		x.tables = map[string]*tableEnc{}
	}
	d := lineprotocol.NewDecoderWithBytes(b.Data)
	var record int64
	for d.Next() {
		record++
		m, err := d.Measurement()
		if err != nil {
			return decodeErr(record, err)
		}
		e := x.tables[string(m)]
		if e == nil || !e.seen {
			// Resolve each table once per batch: its columns stay fixed
			// for the batch's COPY.
			ti, err := r.known(ctx, m)
			if err != nil {
				return &lineError{record: record, err: err}
			}
			if ti == nil {
				if !final {
					return errNeedInference
				}
				return &lineError{record: record, err: fmt.Errorf("no schema for measurement %q", m)}
			}
			if e == nil {
				e = &tableEnc{}
				x.tables[ti.t.Name] = e
			}
			if e.ti != ti {
				e.setInfo(ti)
			}
			e.seen = true
			x.order = append(x.order, e)
		}
		if err := e.row(d, record, final); err != nil {
			return err
		}
	}
	if err := d.Err(); err != nil {
		return decodeErr(record+1, err)
	}
	return nil
}

func decodeErr(record int64, err error) error {
	var de *lineprotocol.DecodeError
	if errors.As(err, &de) {
		return &lineError{record: record, line: de.Line, err: fmt.Errorf("invalid line protocol: %s", de.Err)}
	}
	return &lineError{record: record, err: fmt.Errorf("invalid line protocol: %w", err)}
}

// row encodes the decoder's current line (measurement already read).
func (e *tableEnc) row(d *lineprotocol.Decoder, record int64, final bool) error {
	ti := e.ti
	cols := ti.t.Columns
	for i := range e.starts {
		e.starts[i] = -1
	}
	e.vbuf = e.vbuf[:0]
	unknown := func(kind string, key []byte) error {
		if ti.inferred && !final {
			return errNeedInference
		}
		return &lineError{record: record, err: fmt.Errorf("table %q has no column %q (the line's %s)", ti.t.Name, key, kind)}
	}
	for {
		k, v, err := d.NextTag()
		if err != nil {
			return decodeErr(record, err)
		}
		if k == nil {
			break
		}
		i, ok := ti.colIdx[string(k)]
		if !ok || i == 0 {
			return unknown("tag", k)
		}
		s := len(e.vbuf)
		if e.vbuf, err = appendText(e.vbuf, cols[i].Type, v); err != nil {
			return &lineError{record: record, err: fmt.Errorf("tag %s=%s: %w", k, v, err)}
		}
		e.starts[i], e.ends[i] = s, len(e.vbuf)
	}
	for {
		k, v, err := d.NextField()
		if err != nil {
			return decodeErr(record, err)
		}
		if k == nil {
			break
		}
		i, ok := ti.colIdx[string(k)]
		if !ok || i == 0 {
			return unknown("field", k)
		}
		s := len(e.vbuf)
		if e.vbuf, err = appendValue(e.vbuf, cols[i].Type, v); err != nil {
			if ti.inferred && !final {
				return errNeedInference // inference reports the type conflict
			}
			return &lineError{record: record, err: fmt.Errorf("field %s: %w", k, err)}
		}
		e.starts[i], e.ends[i] = s, len(e.vbuf)
	}
	tb, err := d.TimeBytes()
	if err != nil {
		return decodeErr(record, err)
	}
	if len(tb) == 0 {
		return &lineError{record: record, err: errors.New("line has no timestamp")}
	}
	ns, err := strconv.ParseInt(string(tb), 10, 64)
	if err != nil {
		return &lineError{record: record, err: fmt.Errorf("timestamp %q: %w", tb, err)}
	}
	s := len(e.vbuf)
	e.vbuf = binary.BigEndian.AppendUint64(e.vbuf, uint64(unixNanosToPG(ns)))
	e.starts[0], e.ends[0] = s, len(e.vbuf)
	for i := range e.fields {
		if e.starts[i] < 0 {
			e.fields[i] = nil
		} else {
			e.fields[i] = e.vbuf[e.starts[i]:e.ends[i]]
		}
	}
	e.buf = appendTuple(e.buf, e.fields)
	e.rows++
	return nil
}

// infer scans the whole batch and creates or widens the tables no use case
// describes: tags are text, floats float8, integers int8, strings text,
// booleans boolean; columns in first-seen order after the time column.
func (x *ilpEncoder) infer(ctx context.Context, b *load.Batch, r resolver) error {
	type pending struct {
		t    *schema.Table
		idx  map[string]int
		line int64
	}
	var order []*pending
	byName := map[string]*pending{}
	d := lineprotocol.NewDecoderWithBytes(b.Data)
	var record int64
	for d.Next() {
		record++
		m, err := d.Measurement()
		if err != nil {
			return decodeErr(record, err)
		}
		ti, err := r.known(ctx, m)
		if err != nil {
			return &lineError{record: record, err: err}
		}
		if ti != nil && !ti.inferred {
			continue
		}
		p := byName[string(m)]
		if p == nil {
			p = &pending{t: &schema.Table{Name: string(m), Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}}}, idx: map[string]int{"time": 0}}
			if ti != nil {
				p.t.Columns = append([]schema.Column(nil), ti.t.Columns...)
				for i, c := range p.t.Columns {
					p.idx[c.Name] = i
				}
			}
			byName[string(m)] = p
			order = append(order, p)
		}
		add := func(key []byte, typ schema.Type, tag bool) error {
			if i, ok := p.idx[string(key)]; ok {
				c := p.t.Columns[i]
				if i == 0 || c.Tag != tag || (c.Type != typ && !(c.Type == schema.Float8 && typ == schema.Int8)) {
					return &lineError{record: record, err: fmt.Errorf("%q in table %q: conflicts with the column's type %s", key, p.t.Name, typeSQL(c.Type))}
				}
				return nil
			}
			p.idx[string(key)] = len(p.t.Columns)
			p.t.Columns = append(p.t.Columns, schema.Column{Name: string(key), Type: typ, Tag: tag})
			return nil
		}
		for {
			k, _, err := d.NextTag()
			if err != nil {
				return decodeErr(record, err)
			}
			if k == nil {
				break
			}
			if err := add(k, schema.Text, true); err != nil {
				return err
			}
		}
		for {
			k, v, err := d.NextField()
			if err != nil {
				return decodeErr(record, err)
			}
			if k == nil {
				break
			}
			if err := add(k, inferType(v.Kind()), false); err != nil {
				return err
			}
		}
	}
	if err := d.Err(); err != nil {
		return decodeErr(record+1, err)
	}
	for _, p := range order {
		if _, err := r.ensure(ctx, p.t); err != nil {
			return err
		}
	}
	return nil
}

func inferType(k lineprotocol.ValueKind) schema.Type {
	switch k {
	case lineprotocol.Int, lineprotocol.Uint:
		return schema.Int8
	case lineprotocol.String:
		return schema.Text
	case lineprotocol.Bool:
		return typeBool
	}
	return schema.Float8
}

// appendText appends the binary encoding of text s (an ILP tag) as type t.
func appendText(dst []byte, t schema.Type, s []byte) ([]byte, error) {
	switch t {
	case schema.Text:
		return append(dst, s...), nil
	case schema.Float8:
		f, err := strconv.ParseFloat(string(s), 64)
		if err != nil {
			return dst, errors.New("not a float8")
		}
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case schema.Float4:
		f, err := strconv.ParseFloat(string(s), 32)
		if err != nil {
			return dst, errors.New("not a float4")
		}
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
	case schema.Int8:
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return dst, errors.New("not an int8")
		}
		return binary.BigEndian.AppendUint64(dst, uint64(n)), nil
	case schema.Int4:
		n, err := strconv.ParseInt(string(s), 10, 32)
		if err != nil {
			return dst, errors.New("not an int4")
		}
		return binary.BigEndian.AppendUint32(dst, uint32(int32(n))), nil
	case typeBool:
		v, err := strconv.ParseBool(string(s))
		if err != nil {
			return dst, errors.New("not a boolean")
		}
		return appendBool(dst, v), nil
	case schema.Timestamp:
		tm, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return dst, errors.New("not an RFC 3339 timestamp")
		}
		return binary.BigEndian.AppendUint64(dst, uint64(unixNanosToPG(tm.UnixNano()))), nil
	}
	return dst, fmt.Errorf("unsupported column type %s", typeSQL(t))
}

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// appendValue appends the binary encoding of ILP field value v as type t.
// Integers convert to float columns; anything else must match.
func appendValue(dst []byte, t schema.Type, v lineprotocol.Value) ([]byte, error) {
	k := v.Kind()
	switch t {
	case schema.Float8, schema.Float4:
		f, ok := ilp.AsFloat(v)
		if !ok {
			return dst, fmt.Errorf("%s value for a %s column", k, typeSQL(t))
		}
		if t == schema.Float4 {
			return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
		}
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case schema.Int8, schema.Int4:
		var n int64
		switch k {
		case lineprotocol.Int:
			n = v.IntV()
		case lineprotocol.Uint:
			if v.UintV() > math.MaxInt64 {
				return dst, fmt.Errorf("%d out of range for %s", v.UintV(), typeSQL(t))
			}
			n = int64(v.UintV())
		default:
			return dst, fmt.Errorf("%s value for a %s column", k, typeSQL(t))
		}
		if t == schema.Int4 {
			if n < math.MinInt32 || n > math.MaxInt32 {
				return dst, fmt.Errorf("%d out of range for int4", n)
			}
			return binary.BigEndian.AppendUint32(dst, uint32(int32(n))), nil
		}
		return binary.BigEndian.AppendUint64(dst, uint64(n)), nil
	case schema.Text:
		if k != lineprotocol.String {
			return dst, fmt.Errorf("%s value for a text column", k)
		}
		return append(dst, v.BytesV()...), nil
	case typeBool:
		if k != lineprotocol.Bool {
			return dst, fmt.Errorf("%s value for a boolean column", k)
		}
		return appendBool(dst, v.BoolV()), nil
	case schema.Timestamp:
		if k != lineprotocol.Int {
			return dst, fmt.Errorf("%s value for a timestamptz column (want integer nanoseconds)", k)
		}
		return binary.BigEndian.AppendUint64(dst, uint64(unixNanosToPG(v.IntV()))), nil
	}
	return dst, fmt.Errorf("unsupported column type %s", typeSQL(t))
}

// writerResolver resolves tables for one writer over its connection.
type writerResolver struct {
	t    *Target
	conn *pgx.Conn
}

func (r writerResolver) current(name []byte) *tableInfo {
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	return r.t.tables[string(name)]
}

func (r writerResolver) known(ctx context.Context, name []byte) (*tableInfo, error) {
	if ti := r.current(name); ti != nil {
		return ti, nil
	}
	s := r.t.lookupSchema(string(name))
	if s == nil {
		return nil, nil
	}
	return r.t.ensureTable(ctx, r.conn, s, false)
}

func (r writerResolver) ensure(ctx context.Context, t *schema.Table) (*tableInfo, error) {
	return r.t.ensureTable(ctx, r.conn, t, true)
}
