package gen

import (
	"strconv"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

// Truck tag vocabularies and model attributes of the iot use case.
var (
	fleets         = bytesOf([]string{"East", "West", "North", "South"})
	drivers        = bytesOf([]string{"Derek", "Rodney", "Albert", "Andy", "Seth", "Trish"})
	truckModels    = bytesOf([]string{"F-150", "G-2000", "H-2"})
	deviceVersions = bytesOf([]string{"v1.0", "v1.5", "v2.0", "v2.3"})
	// load_capacity, fuel_capacity, nominal_fuel_consumption per model
	modelAttrs = [][3]float64{{2000, 200, 15}, {5000, 300, 19}, {1500, 150, 12}}
)

// Irregularity rates of the iot use case, per row of each table. A row is
// missing as part of a run (runs start with probability IoTRunStart and are
// 2..20 rows long: about 1% of rows), or alone (IoTSingleMissing of the
// rows not in a run: about 10%); a present row is delayed with probability
// IoTDelayed by 1..6 epochs (it is written after the series' row of the
// later epoch, so timestamps step backwards), has one NULL field with
// probability IoTNullField and one NULL tag (never name) with probability
// IoTNullTag.
const (
	IoTRunStart      = 0.00092
	IoTRunMin        = 2
	IoTRunMax        = 20
	IoTSingleMissing = 0.10
	IoTDelayed       = 0.05
	IoTMaxDelay      = 6
	IoTNullField     = 0.10
	IoTNullTag       = 0.01
)

const (
	tableReadings    = 0
	tableDiagnostics = 1
	iotPending       = 2 // delayed rows a series can hold
	iotVals          = 7 // state variables per series (readings has 7)
)

type truck struct {
	fleet, driver, model, version uint8
}

type iotModel struct{ modelBase }

func newIoTModel(p params) *iotModel {
	ts, _ := usecase.Tables(usecase.IoT)
	return &iotModel{modelBase{p: p, tabs: ts, perGroup: 512}}
}

// pending is a delayed row.
type pending struct {
	due     int64 // epoch at which it is written
	ns      int64
	vals    [iotVals]float64
	null    uint64
	nullTag int8
	used    bool
}

type iotSeries struct {
	pcg     pcgState
	truck   truck
	vals    [iotVals]float64
	runLeft int32
	pend    [iotPending]pending
}

type iotGroup struct {
	table  int
	lo     int
	s      []iotSeries
	r      *rng
	row    format.Row
	name   []byte
	fields int
	keys   [][]byte // encoded series keys of rows without a NULL tag
}

func (m *iotModel) newGroup(t, lo, hi int) group {
	g := &iotGroup{table: t, lo: lo, s: make([]iotSeries, hi-lo), r: newRNG()}
	if m.p.scale*2 <= maxCachedSeries {
		g.keys = make([][]byte, hi-lo)
	}
	tb := m.tabs[t]
	g.fields = tb.Fields()
	g.row.Tags = make([][]byte, len(usecase.TruckTags))
	g.row.Float = make([]float64, g.fields)
	g.row.Int = make([]int64, g.fields)
	r := g.r
	for k := range g.s {
		s := &g.s[k]
		i := uint64(lo + k)
		seedPCG(&s.pcg.PCG, m.p.seed, streamTruck, i, 0)
		r.use(&s.pcg.PCG)
		s.truck = truck{uint8(r.IntN(len(fleets))), uint8(r.IntN(len(drivers))), uint8(r.IntN(len(truckModels))), uint8(r.IntN(len(deviceVersions)))}
		seedPCG(&s.pcg.PCG, m.p.seed, streamIoT, uint64(t), i)
		v := &s.vals
		if t == tableReadings {
			v[0] = r.uniform(0, 90)  // latitude
			v[1] = r.uniform(0, 90)  // longitude
			v[2] = r.uniform(0, 500) // elevation
			v[3] = 0                 // velocity
			v[4] = r.uniform(0, 360) // heading
			v[5] = 0                 // grade
			v[6] = 25                // fuel_consumption
		} else {
			v[0] = 1                            // fuel_state
			v[1] = round(r.uniform(0, 5000), 1) // current_load
			v[2] = 0                            // status
		}
	}
	return g
}

// advance moves a series' values one epoch on.
func (g *iotGroup) advance(v *[iotVals]float64) {
	r := g.r
	if g.table == tableReadings {
		v[0] = clamp(v[0]+r.uniform(-0.005, 0.005), -90, 90)
		v[1] = clamp(v[1]+r.uniform(-0.005, 0.005), -180, 180)
		v[2] = clamp(v[2]+r.uniform(-10, 10), 0, 5000)
		v[3] = clamp(v[3]+r.uniform(-10, 10), 0, 100)
		v[4] = clamp(v[4]+r.uniform(-5, 5), 0, 360)
		v[5] = clamp(v[5]+r.uniform(-5, 5), 0, 100)
		v[6] = clamp(v[6]+r.uniform(-5, 5), 0, 50)
		return
	}
	v[0] = clamp(v[0]+r.uniform(-0.001, 0), 0, 1)
	if v[0] == 0 {
		v[0] = 1 // refuelled
	}
	if r.Float64() < 0.05 {
		v[1] = round(r.uniform(0, 5000), 1)
	}
	v[2] = clamp(v[2]+r.NormFloat64(), 0, 5)
}

func (g *iotGroup) epoch(c *epochCtx, u *unit) error {
	r := g.r
	for k := range g.s {
		s := &g.s[k]
		r.use(&s.pcg.PCG)
		if c.e > 0 {
			g.advance(&s.vals)
		}
		present := false
		switch {
		case s.runLeft > 0:
			s.runLeft--
		default:
			x := r.Float64()
			switch {
			case x < IoTRunStart:
				s.runLeft = int32(IoTRunMin + r.IntN(IoTRunMax-IoTRunMin+1) - 1)
			case x < IoTRunStart+IoTSingleMissing:
			default:
				present = true
			}
		}
		if present {
			var null uint64
			nullTag := int8(-1)
			if r.Float64() < IoTNullField {
				null = 1 << uint(r.IntN(g.fields))
			}
			if r.Float64() < IoTNullTag {
				nullTag = int8(1 + r.IntN(len(usecase.TruckTags)-1))
			}
			delayed := false
			if r.Float64() < IoTDelayed && !c.last {
				d := int64(1 + r.IntN(IoTMaxDelay))
				for j := range s.pend {
					p := &s.pend[j]
					if !p.used {
						*p = pending{due: c.e + d, ns: c.ns, vals: s.vals, null: null, nullTag: nullTag, used: true}
						delayed = true
						break
					}
				}
			}
			if !delayed {
				if err := g.emit(c, u, k, c.ns, &s.vals, null, nullTag); err != nil {
					return err
				}
			}
		}
		// delayed rows now due, oldest first
		for {
			best := -1
			for j := range s.pend {
				p := &s.pend[j]
				if p.used && (p.due <= c.e || c.last) && (best < 0 || p.ns < s.pend[best].ns) {
					best = j
				}
			}
			if best < 0 {
				break
			}
			p := &s.pend[best]
			p.used = false
			if err := g.emit(c, u, k, p.ns, &p.vals, p.null, p.nullTag); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *iotGroup) emit(c *epochCtx, u *unit, k int, ns int64, v *[iotVals]float64, null uint64, nullTag int8) error {
	s := &g.s[k]
	row := &g.row
	g.name = strconv.AppendInt(append(g.name[:0], "truck_"...), int64(g.lo+k), 10)
	row.Tags[0] = g.name
	row.Tags[1] = fleets[s.truck.fleet]
	row.Tags[2] = drivers[s.truck.driver]
	row.Tags[3] = truckModels[s.truck.model]
	row.Tags[4] = deviceVersions[s.truck.version]
	row.Key = nil
	if nullTag > 0 {
		row.Tags[nullTag] = nil
	} else if g.keys != nil {
		row.Key = &g.keys[k]
	}
	f := row.Float
	var n int
	if g.table == tableReadings {
		f[0] = round(v[0], 1e5)
		f[1] = round(v[1], 1e5)
		f[2] = round(v[2], 1)
		f[3] = round(v[3], 10)
		f[4] = round(v[4], 10)
		f[5] = round(v[5], 10)
		f[6] = round(v[6], 10)
		n = 7
	} else {
		f[0] = round(v[0], 10)
		f[1] = v[1]
		row.Int[2] = int64(round(v[2], 1))
		n = 3
	}
	a := modelAttrs[s.truck.model]
	f[n], f[n+1], f[n+2] = a[0], a[1], a[2]
	row.Null = null
	row.Time = ns
	c.ent = g.lo + k
	return u.add(c, row)
}
