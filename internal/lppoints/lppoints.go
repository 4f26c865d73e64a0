// Package lppoints reads line protocol into query points: the reference
// reading that the query tests evaluate (query.Eval) and compare the
// answers of the checks and of the databases with.
package lppoints

import (
	"fmt"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/query"
)

// Each calls yield with every line of data, in order: its table (the
// measurement) and its point, nanosecond timestamps, numeric fields as
// floats (integers and unsigned integers too; booleans and strings left
// out, as the checks read them). It stops when yield returns false; an
// error names the line.
func Each(data []byte, yield func(table string, p query.Point) bool) error {
	dec := lineprotocol.NewDecoderWithBytes(data)
	for line := 1; dec.Next(); line++ {
		m, err := dec.Measurement()
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		p := query.Point{Tags: map[string]string{}, Fields: map[string]float64{}}
		for {
			k, v, err := dec.NextTag()
			if err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			if k == nil {
				break
			}
			p.Tags[string(k)] = string(v)
		}
		for {
			k, v, err := dec.NextField()
			if err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			if k == nil {
				break
			}
			switch v.Kind() {
			case lineprotocol.Float:
				p.Fields[string(k)] = v.FloatV()
			case lineprotocol.Int:
				p.Fields[string(k)] = float64(v.IntV())
			case lineprotocol.Uint:
				p.Fields[string(k)] = float64(v.UintV())
			}
		}
		if p.Time, err = dec.Time(lineprotocol.Nanosecond, time.Time{}); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		p.Time = p.Time.UTC()
		if !yield(string(m), p) {
			return nil
		}
	}
	return nil
}
