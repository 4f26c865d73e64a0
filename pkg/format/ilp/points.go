package ilp

import (
	"errors"
	"fmt"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/schema"
)

// Point is one line decoded by PointReader: its measurement, tags, fields
// and time. Its slices alias the input and the reader's buffers: they are
// valid until the callback that received the point returns.
type Point struct {
	Measurement []byte
	Tags        []PointTag
	Fields      []PointField
	Time        time.Time
}

// PointTag is a tag of a Point.
type PointTag struct{ Key, Value []byte }

// PointField is a field of a Point.
type PointField struct {
	Key   []byte
	Value lineprotocol.Value
}

// PointReader decodes lines into Points for a target that writes rows
// itself (the embedded databases), reusing its buffers from one call to
// the next. It is used by one goroutine.
type PointReader struct {
	p Point
}

// Read calls fn with each line of data in turn; data holds the input's
// lines from line firstLine of source, and a line without a timestamp
// gets the time of the call. where wraps an error with the source and the
// line it belongs to: a decoding error is returned so, and fn wraps its
// own with it.
func (r *PointReader) Read(data []byte, source string, firstLine int64, fn func(p *Point, where func(error) error) error) error {
	dec := lineprotocol.NewDecoderWithBytes(data)
	now := time.Now()
	line := int64(0)
	where := func(err error) error {
		var de *lineprotocol.DecodeError
		if errors.As(err, &de) {
			return fmt.Errorf("%s: input line %d: %v", source, firstLine+de.Line-1, de.Err)
		}
		return fmt.Errorf("%s: input line %d or after: %v", source, firstLine+line-1, err)
	}
	p := &r.p
	for dec.Next() {
		line++
		m, err := dec.Measurement()
		if err != nil {
			return where(err)
		}
		p.Measurement, p.Tags, p.Fields = m, p.Tags[:0], p.Fields[:0]
		for {
			k, v, err := dec.NextTag()
			if err != nil {
				return where(err)
			}
			if k == nil {
				break
			}
			p.Tags = append(p.Tags, PointTag{k, v})
		}
		for {
			k, v, err := dec.NextField()
			if err != nil {
				return where(err)
			}
			if k == nil {
				break
			}
			p.Fields = append(p.Fields, PointField{k, v})
		}
		if p.Time, err = dec.Time(lineprotocol.Nanosecond, now); err != nil {
			return where(err)
		}
		if err := fn(p, where); err != nil {
			return err
		}
	}
	return nil
}

// Table is the table named name that p implies when no table is known:
// the time, p's tags as text, its fields by their kind (float8; int8 for
// integers and booleans; text for strings).
func (p *Point) Table(name string) *schema.Table {
	tb := &schema.Table{Name: name, Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}}}
	for _, tg := range p.Tags {
		tb.Columns = append(tb.Columns, schema.Column{Name: string(tg.Key), Type: schema.Text, Tag: true})
	}
	for _, f := range p.Fields {
		typ := schema.Float8
		switch f.Value.Kind() {
		case lineprotocol.Int, lineprotocol.Uint, lineprotocol.Bool:
			typ = schema.Int8
		case lineprotocol.String:
			typ = schema.Text
		}
		tb.Columns = append(tb.Columns, schema.Column{Name: string(f.Key), Type: typ})
	}
	return tb
}
