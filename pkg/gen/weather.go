package gen

import (
	"math"
	"strconv"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

// The ERA5 0.25-degree grid.
const (
	GridLatitudes  = 721
	GridLongitudes = 1440
	GridLocations  = GridLatitudes * GridLongitudes // 1,038,240
)

// LocationID returns the location id of the k-th of n locations picked from
// the grid: ids spread evenly over the whole grid, ascending.
func LocationID(k, n int) int { return int(int64(k) * GridLocations / int64(n)) }

// LatLon returns the latitude and longitude (degrees) of a location id.
func LatLon(id int) (lat, lon float64) {
	return 90 - 0.25*float64(id/GridLongitudes), 0.25 * float64(id%GridLongitudes)
}

type weatherModel struct{ modelBase }

func newWeatherModel(p params) *weatherModel {
	ts, _ := usecase.Tables(usecase.Weather)
	return &weatherModel{modelBase{p: p, tabs: ts, perGroup: 4096}}
}

// location is one grid point's persistent state: a fixed temperature
// offset and AR(1) anomalies of temperature, wind and cloudiness.
type location struct {
	pcg        pcgState
	id         int32
	offset     float32
	temp, u, v float32
	cloud      float32
}

// climate is what depends on latitude only.
type climate struct {
	base, seasonAmp, diurnalAmp, uMean, vMean, cloudBias float64
	hemisphere                                           float64
}

func climateAt(lat float64) climate {
	rad := lat * math.Pi / 180
	s := math.Sin(rad)
	a := math.Abs(lat)
	g := func(x, mu, sd float64) float64 { d := (x - mu) / sd; return math.Exp(-d * d) }
	var hemi float64
	switch {
	case lat > 0:
		hemi = 1
	case lat < 0:
		hemi = -1
	}
	return climate{
		base:       27 - 52*s*s,
		seasonAmp:  1 + 18*math.Abs(s),
		diurnalAmp: 1 + 5*math.Cos(rad),
		// trades, mid-latitude westerlies, polar easterlies
		uMean: -6*g(a, 15, 10) + 9*g(a, 45, 12) - 3*g(a, 75, 8),
		// trades blow towards the equator
		vMean: -hemi * 2.5 * g(a, 15, 10),
		// ITCZ, dry subtropics, mid-latitude storm tracks
		cloudBias:  0.5*g(lat, 0, 8) - 1.2*g(a, 25, 8) + 0.8*g(a, 55, 12),
		hemisphere: hemi,
	}
}

type weatherGroup struct {
	lo     int // first entity
	locs   []location
	r      *rng
	row    format.Row
	idText []byte
	// climate cache for the latitude row last used
	climLat int
	clim    climate
}

func (m *weatherModel) newGroup(_ int, lo, hi int) group {
	g := &weatherGroup{lo: lo, locs: make([]location, hi-lo), r: newRNG(), climLat: -1}
	g.row.Tags = make([][]byte, 1)
	g.row.TagInt = make([]int64, 1)
	g.row.Float = make([]float64, 8)
	g.row.Int = make([]int64, 8)
	r := g.r
	for k := range g.locs {
		l := &g.locs[k]
		id := LocationID(lo+k, m.p.scale)
		l.id = int32(id)
		seedPCG(&l.pcg.PCG, m.p.seed, streamWeather, uint64(id), 0)
		r.use(&l.pcg.PCG)
		l.offset = float32(r.normal(0, 1.5))
		l.temp = float32(r.normal(0, 2))
		l.u = float32(r.normal(0, 2.5))
		l.v = float32(r.normal(0, 2.5))
		l.cloud = float32(r.normal(0, 1.1))
	}
	return g
}

const (
	nsPerHour = 3600e9
	nsPerDay  = 86400e9
)

func (g *weatherGroup) epoch(c *epochCtx, u *unit) error {
	r := g.r
	days := float64(c.ns) / nsPerDay
	// day of the year (1970-01-01 is a 1 January), and the seasonal
	// phase: coldest in mid-January in the north
	doy := math.Mod(days, 365.2422)
	season := -math.Cos(2 * math.Pi * (doy - 15) / 365.2422)
	utcHour := math.Mod(float64(c.ns)/nsPerHour, 24)
	f := g.row.Float
	for k := range g.locs {
		l := &g.locs[k]
		r.use(&l.pcg.PCG)
		if c.e > 0 {
			l.temp = float32(0.97*float64(l.temp) + r.normal(0, 0.5))
			l.u = float32(0.9*float64(l.u) + r.normal(0, 1.2))
			l.v = float32(0.9*float64(l.v) + r.normal(0, 1.2))
			l.cloud = float32(0.95*float64(l.cloud) + r.normal(0, 0.35))
		}
		id := int(l.id)
		latIdx := id / GridLongitudes
		lat, lon := LatLon(id)
		if latIdx != g.climLat {
			g.climLat, g.clim = latIdx, climateAt(lat)
		}
		cl := &g.clim
		solar := math.Mod(utcHour+lon/15, 24)
		temp := cl.base + cl.hemisphere*cl.seasonAmp*season +
			cl.diurnalAmp*math.Cos(2*math.Pi*(solar-15)/24) +
			float64(l.offset) + float64(l.temp)
		cover := 1 / (1 + math.Exp(-(cl.cloudBias + float64(l.cloud))))
		precip := 0.0
		if cover > 0.8 && r.Float64() < (cover-0.8)*2.5 {
			precip = round(r.ExpFloat64()*1.5*(cover-0.75)/0.25, 100)
		}
		snow := 0.0
		temp = round(temp, 100)
		if temp < 0 {
			snow = precip
		}
		g.idText = strconv.AppendInt(g.idText[:0], int64(id), 10)
		g.row.Tags[0] = g.idText
		g.row.TagInt[0] = int64(id)
		f[0], f[1] = lat, lon
		f[2] = temp
		f[3] = round(cl.uMean+float64(l.u), 100)
		f[4] = round(cl.vMean+float64(l.v), 100)
		f[5] = round(cover, 1000)
		f[6] = precip
		f[7] = snow
		g.row.Time = c.ns
		c.ent = g.lo + k
		if err := u.add(c, &g.row); err != nil {
			return err
		}
	}
	return nil
}
