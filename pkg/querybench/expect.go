package querybench

import (
	"fmt"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/split"
)

// Expect is the reference answer to every query of qs over the input file
// path as loaded (line protocol, plain, gzip or zstd; its tables named
// with prefix in front, its timestamps in unit): query.EvalSet over one
// pass of the file. Its memory grows with the answers, not the input.
func Expect(path, prefix string, unit time.Duration, qs []*query.Query) ([]*query.Answer, error) {
	in, err := split.Open(path, nil, 0)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	f, err := in.Detect()
	if err != nil {
		return nil, err
	}
	if f != format.ILP {
		return nil, fmt.Errorf("%s: the answers are checked over line protocol input only, not %s (or run with --check=false)", path, f)
	}
	prec, err := precision(unit)
	if err != nil {
		return nil, err
	}
	// The tags and fields any query reads: the rest of a line is skipped.
	tags, fields := map[string]bool{}, map[string]bool{}
	for _, q := range qs {
		for _, m := range q.Where {
			tags[m.Tag] = true
		}
		for _, g := range q.GroupBy {
			tags[g] = true
		}
		for _, fl := range q.Fields {
			fields[fl] = true
		}
		if q.Filter != nil {
			fields[q.Filter.Field] = true
		}
	}
	dec := lineprotocol.NewDecoder(in.Reader())
	line := 0
	var bad error
	points := func(yield func(query.TablePoint) bool) {
		for dec.Next() {
			line++
			m, err := dec.Measurement()
			if err != nil {
				bad = err
				return
			}
			p := query.TablePoint{Table: prefix + string(m), Point: query.Point{Tags: map[string]string{}, Fields: map[string]float64{}}}
			for {
				k, v, err := dec.NextTag()
				if err != nil {
					bad = err
					return
				}
				if k == nil {
					break
				}
				if tags[string(k)] {
					p.Tags[string(k)] = string(v)
				}
			}
			for {
				k, v, err := dec.NextField()
				if err != nil {
					bad = err
					return
				}
				if k == nil {
					break
				}
				if !fields[string(k)] {
					continue
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
			if p.Time, err = dec.Time(prec, time.Time{}); err != nil {
				bad = err
				return
			}
			p.Time = p.Time.UTC()
			if !yield(p) {
				return
			}
		}
	}
	answers := query.EvalSet(qs, points)
	if bad != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line, bad)
	}
	return answers, nil
}

func precision(unit time.Duration) (lineprotocol.Precision, error) {
	switch unit {
	case 0, time.Nanosecond:
		return lineprotocol.Nanosecond, nil
	case time.Microsecond:
		return lineprotocol.Microsecond, nil
	case time.Millisecond:
		return lineprotocol.Millisecond, nil
	case time.Second:
		return lineprotocol.Second, nil
	}
	return 0, fmt.Errorf("timestamp unit %s: want ns, us, ms or s", unit)
}
