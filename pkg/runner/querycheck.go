package runner

import (
	"fmt"
	"io"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/split"
)

// expect is the expected answer to q: query.Eval over the input's rows of
// q's window, read back from the input (see the package's query load).
func (ql *queryLoad) expect(q *query.Query) (*query.Answer, error) {
	off, end := ql.wm.span(q.Start.UnixNano())
	in, err := split.Open(ql.path, nil, 1<<20)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if _, err := io.CopyN(io.Discard, in.Reader(), off); err != nil {
		return nil, fmt.Errorf("skipping to byte %d: %w", off, err)
	}
	pts := &ilpPoints{dec: lineprotocol.NewDecoder(io.LimitReader(in.Reader(), end-off)), q: q, prefix: ql.ds.TablePrefix,
		unit: ql.unit, stop: q.End.UnixNano() + ql.disorder}
	ans := query.Eval(q, pts.all)
	if pts.err != nil {
		return nil, fmt.Errorf("line %d after byte %d: %w", pts.line, off, pts.err)
	}
	return ans, nil
}

// ilpPoints reads the rows of q's table from line protocol until a row at
// stop or later (ns) or the end.
type ilpPoints struct {
	dec    *lineprotocol.Decoder
	q      *query.Query
	prefix string
	unit   int64
	stop   int64
	line   int64
	err    error
}

func (p *ilpPoints) all(yield func(query.Point) bool) {
	pt := query.Point{Tags: map[string]string{}, Fields: map[string]float64{}}
	for p.dec.Next() {
		p.line++
		m, err := p.dec.Measurement()
		if err != nil {
			p.err = err
			return
		}
		ours := len(m)+len(p.prefix) == len(p.q.Table) && p.prefix+string(m) == p.q.Table
		if ours {
			clear(pt.Tags)
			clear(pt.Fields)
			if err := p.row(&pt); err != nil {
				p.err = err
				return
			}
		}
		t, err := p.dec.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil {
			p.err = err
			return
		}
		ns := t.UnixNano() * p.unit
		if ns >= p.stop {
			return
		}
		if ours {
			pt.Time = time.Unix(0, ns).UTC()
			if !yield(pt) {
				return
			}
		}
	}
	p.err = p.dec.Err()
}

func (p *ilpPoints) row(pt *query.Point) error {
	for {
		k, v, err := p.dec.NextTag()
		if err != nil {
			return err
		}
		if k == nil {
			break
		}
		pt.Tags[string(k)] = string(v)
	}
	for {
		k, v, err := p.dec.NextField()
		if err != nil {
			return err
		}
		if k == nil {
			return nil
		}
		switch v.Kind() {
		case lineprotocol.Float:
			pt.Fields[string(k)] = v.FloatV()
		case lineprotocol.Int:
			pt.Fields[string(k)] = float64(v.IntV())
		case lineprotocol.Uint:
			pt.Fields[string(k)] = float64(v.UintV())
		}
	}
}
