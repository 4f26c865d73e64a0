// Package ilp encodes rows as InfluxDB line protocol with
// github.com/influxdata/line-protocol/v2's Encoder: tags sorted by key, NULL
// tags and fields omitted, doubles in shortest round-trip form, integers with
// the i suffix, nanosecond timestamps (docs/formats.md, "ILP").
package ilp

import (
	"fmt"
	"sort"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

type table struct {
	format.TableInfo
	tagKeys   [][]byte
	tagOrder  []int // tag indexes sorted by key
	fieldKeys [][]byte
	isFloat   []bool
}

// Encoder writes line protocol. Its zero value is not usable; call New.
type Encoder struct {
	tables []table
	enc    lineprotocol.Encoder
}

var _ format.Encoder = (*Encoder)(nil)

// New returns an encoder for rows of the given tables. Measurement names and
// keys are checked here once; rows are then encoded in the Encoder's lax mode
// (the tag values the generator writes are plain ASCII without spaces, commas
// or equals signs; tests decode every line to keep it so).
func New(tables []*schema.Table) (*Encoder, error) {
	infos, err := format.Describe(tables)
	if err != nil {
		return nil, err
	}
	e := &Encoder{}
	var check lineprotocol.Encoder
	for _, ti := range infos {
		t := table{TableInfo: ti}
		check.StartLine(ti.Name)
		for i, c := range ti.TagCols {
			t.tagKeys = append(t.tagKeys, []byte(c.Name))
			t.tagOrder = append(t.tagOrder, i)
		}
		sort.Slice(t.tagOrder, func(a, b int) bool {
			return ti.TagCols[t.tagOrder[a]].Name < ti.TagCols[t.tagOrder[b]].Name
		})
		for _, i := range t.tagOrder {
			check.AddTag(ti.TagCols[i].Name, "x")
		}
		for _, c := range ti.FieldCols {
			t.fieldKeys = append(t.fieldKeys, []byte(c.Name))
			t.isFloat = append(t.isFloat, format.IsFloat(c.Type))
			check.AddField(c.Name, lineprotocol.IntValue(0))
		}
		check.EndLine(time.Unix(0, 0))
		if err := check.Err(); err != nil {
			return nil, fmt.Errorf("table %s: %w", ti.Name, err)
		}
		e.tables = append(e.tables, t)
	}
	e.enc.SetLax(true)
	return e, nil
}

// StreamHeader writes nothing: line protocol has no header.
func (e *Encoder) StreamHeader(dst []byte) []byte { return dst }

// ChunkHeader writes nothing: every line names its measurement.
func (e *Encoder) ChunkHeader(dst []byte, _ int, _ int) []byte { return dst }

// StreamTrailer writes nothing.
func (e *Encoder) StreamTrailer(dst []byte) []byte { return dst }

// AppendRow appends one line. A row whose fields are all NULL, or a NaN or
// infinite float, is an error (line protocol cannot carry either).
func (e *Encoder) AppendRow(dst []byte, r *format.Row) ([]byte, error) {
	t := &e.tables[r.Table]
	enc := &e.enc
	enc.SetBuffer(dst)
	enc.StartLineRaw(t.NameBytes)
	for _, i := range t.tagOrder {
		if v := r.Tags[i]; v != nil {
			enc.AddTagRaw(t.tagKeys[i], v)
		}
	}
	n := 0
	for i, key := range t.fieldKeys {
		if r.Null&(1<<uint(i)) != 0 {
			continue
		}
		if t.isFloat[i] {
			v, ok := lineprotocol.FloatValue(r.Float[i])
			if !ok {
				return dst, fmt.Errorf("%s.%s: cannot encode %v in line protocol", t.Name, key, r.Float[i])
			}
			enc.AddFieldRaw(key, v)
		} else {
			enc.AddFieldRaw(key, lineprotocol.IntValue(r.Int[i]))
		}
		n++
	}
	if n == 0 {
		return dst, fmt.Errorf("%s: row at %d has no non-NULL field", t.Name, r.Time)
	}
	enc.EndLine(time.Unix(0, r.Time))
	if err := enc.Err(); err != nil {
		return dst, fmt.Errorf("%s: %w", t.Name, err)
	}
	return enc.Bytes(), nil
}
