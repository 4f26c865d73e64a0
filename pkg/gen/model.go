package gen

import (
	"fmt"
	"math"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// model is one use case: its tables, its entities (hosts, trucks,
// locations) and the state of a group of series.
type model interface {
	tables() []*schema.Table
	// entities is the number of entities at the configured scale.
	entities() int
	// groupSize is the number of entities per unit of work.
	groupSize() int
	// newGroup returns the series of table t for entities [lo, hi).
	newGroup(t, lo, hi int) group
}

// modelBase is what the models hold alike: the parameters, the tables and
// the entities per unit of work; it answers tables, entities and groupSize.
type modelBase struct {
	p        params
	tabs     []*schema.Table
	perGroup int
}

func (m *modelBase) tables() []*schema.Table { return m.tabs }
func (m *modelBase) entities() int           { return m.p.scale }
func (m *modelBase) groupSize() int          { return m.perGroup }

// group is the state of the series of one table for a range of entities.
// A group is advanced by exactly one goroutine, one epoch after the other.
type group interface {
	// epoch appends the group's rows of epoch c.e to u.
	epoch(c *epochCtx, u *unit) error
}

// epochCtx is what a group needs to write one epoch.
type epochCtx struct {
	e     int64 // epoch index, from 0
	ns    int64 // the epoch's timestamp, nanoseconds since the Unix epoch
	start int64 // the first epoch's timestamp
	step  int64 // the interval in nanoseconds
	last  bool  // the last epoch: flush anything held back
	enc   format.Encoder
	table int       // the row's table index for enc
	ent   int       // the entity of the row being added
	dis   *disorder // nil: every row on time, once
}

// unit is the output of one group for one epoch: rows of one table.
type unit struct {
	table int
	buf   []byte
	ends  []int32 // end offset of each row in buf
	err   error
}

func (u *unit) reset(table int) {
	u.table = table
	u.buf = u.buf[:0]
	u.ends = u.ends[:0]
	u.err = nil
}

func (u *unit) rows() int { return len(u.ends) }

// add encodes r, a row of entity c.ent, into u (r.Time is the caller's),
// or hands it to c.dis.
func (u *unit) add(c *epochCtx, r *format.Row) error {
	r.Table = c.table
	if c.dis != nil {
		return c.dis.add(c, u, r)
	}
	return u.encode(c, r)
}

// encode appends r to u.
func (u *unit) encode(c *epochCtx, r *format.Row) error {
	buf, err := c.enc.AppendRow(u.buf, r)
	if err != nil {
		return err
	}
	u.buf = buf
	u.ends = append(u.ends, int32(len(buf)))
	return nil
}

// params are the model inputs taken from Config.
type params struct {
	seed     uint64
	scale    int
	start    time.Time
	interval time.Duration
}

func newModel(useCase string, p params) (model, error) {
	switch useCase {
	case usecase.CPUOnly:
		return newHostModel(p, false), nil
	case usecase.DevOps:
		return newHostModel(p, true), nil
	case usecase.IoT:
		return newIoTModel(p), nil
	case usecase.Weather:
		return newWeatherModel(p), nil
	}
	_, err := usecase.Tables(useCase)
	return nil, err
}

// round rounds v to the nearest multiple of 1/mult (mult a power of ten):
// the result is the double nearest that decimal, so its shortest form has at
// most log10(mult) decimals.
func round(v, mult float64) float64 { return roundHalfAway(v*mult) / mult }

// roundHalfAway is math.Round (halves away from zero) built on math.Trunc,
// which is one instruction on amd64 and arm64 where math.Round is not.
// x - Trunc(x) is exact, so the comparison with 0.5 decides correctly.
func roundHalfAway(x float64) float64 {
	t := math.Trunc(x)
	if math.Abs(x-t) >= 0.5 {
		t += math.Copysign(1, x)
	}
	return t
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// fieldIndex returns the index of a field (among the non-tag columns).
func fieldIndex(t *schema.Table, name string) int {
	n := 0
	for _, c := range t.Columns[1:] {
		if c.Tag {
			continue
		}
		if c.Name == name {
			return n
		}
		n++
	}
	panic(fmt.Sprintf("table %s has no field %s", t.Name, name))
}
