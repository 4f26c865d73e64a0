package gen

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Host tag vocabularies of the cpu-only and devops use cases.
var (
	regions = []struct {
		name string
		dcs  []string
	}{
		{"us-east-1", []string{"a", "b", "c", "e"}},
		{"us-west-1", []string{"a", "b"}},
		{"us-west-2", []string{"a", "b", "c"}},
		{"eu-west-1", []string{"a", "b", "c"}},
		{"eu-central-1", []string{"a", "b"}},
		{"ap-southeast-1", []string{"a", "b"}},
		{"ap-southeast-2", []string{"a", "b"}},
		{"ap-northeast-1", []string{"a", "c"}},
		{"sa-east-1", []string{"a", "b", "c"}},
	}
	regionNames = bytesOf(func() (s []string) {
		for _, r := range regions {
			s = append(s, r.name)
		}
		return
	}())
	dcNames = func() (d [][][]byte) {
		for _, r := range regions {
			var x []string
			for _, c := range r.dcs {
				x = append(x, r.name+c)
			}
			d = append(d, bytesOf(x))
		}
		return
	}()
	racks        = numbers(100)
	osNames      = bytesOf([]string{"Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"})
	archNames    = bytesOf([]string{"x64", "x86"})
	teams        = bytesOf([]string{"SF", "NYC", "LON", "CHI"})
	services     = numbers(20)
	versions     = numbers(2)
	environments = bytesOf([]string{"production", "staging", "test"})
	fsTypes      = bytesOf([]string{"ext3", "ext4", "btrfs"})
	diskPaths    = bytesOf([]string{"/dev/sda0", "/dev/sda1", "/dev/sda2", "/dev/sda3", "/dev/sda4", "/dev/sda5", "/dev/sda6", "/dev/sda7", "/dev/sda8", "/dev/sda9"})
	interfaces   = bytesOf([]string{"eth0", "eth1", "eth2", "eth3"})
)

func bytesOf(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i, v := range s {
		out[i] = []byte(v)
	}
	return out
}

func numbers(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(strconv.Itoa(i))
	}
	return out
}

// host is a host's tags as indexes into the vocabularies.
type host struct {
	region, dc, rack, os, arch, team, service, version, env uint8
}

func newHost(seed uint64, h int, r *rng, p *pcgState) host {
	seedPCG(&p.PCG, seed, streamHost, uint64(h), 0)
	r.use(&p.PCG)
	var x host
	x.region = uint8(r.IntN(len(regions)))
	x.dc = uint8(r.IntN(len(regions[x.region].dcs)))
	x.rack = uint8(r.IntN(len(racks)))
	x.os = uint8(r.IntN(len(osNames)))
	x.arch = uint8(r.IntN(len(archNames)))
	x.team = uint8(r.IntN(len(teams)))
	x.service = uint8(r.IntN(len(services)))
	x.version = uint8(r.IntN(len(versions)))
	x.env = uint8(r.IntN(len(environments)))
	return x
}

// fill sets the ten host tags of row (usecase.HostTags order); name is the
// hostname's bytes.
func (x *host) fill(tags [][]byte, name []byte) {
	tags[0] = name
	tags[1] = regionNames[x.region]
	tags[2] = dcNames[x.region][x.dc]
	tags[3] = racks[x.rack]
	tags[4] = osNames[x.os]
	tags[5] = archNames[x.arch]
	tags[6] = teams[x.team]
	tags[7] = services[x.service]
	tags[8] = versions[x.version]
	tags[9] = environments[x.env]
}

// walk kinds
const (
	crw      = iota // clamped random walk
	mono            // monotonic: state += |step|
	free            // unbounded random walk
	constant        // fixed after initialisation
)

// walk is one state variable's process: the step is N(a, b) or U(a, b).
type walk struct {
	kind   uint8
	normal bool
	a, b   float64
	lo, hi float64 // clamp of a crw
	i0, i1 float64 // initial value U(i0, i1); i0 == i1: exactly i0
	// rel >= 0 scales b, hi and i1 by the state variable rel (mem's
	// walks are relative to the host's total memory). 0 means none: slot 0
	// is never relative to itself, so rel is stored +1.
	rel int
}

func n(mean, sd float64) walk { return walk{normal: true, a: mean, b: sd} }
func u(lo, hi float64) walk   { return walk{a: lo, b: hi} }
func (w walk) crw(lo, hi, i0, i1 float64) walk {
	w.kind, w.lo, w.hi, w.i0, w.i1 = crw, lo, hi, i0, i1
	return w
}
func (w walk) mono() walk { w.kind = mono; return w }
func (w walk) free() walk { w.kind = free; return w }
func (w walk) relTo(slot int) walk {
	w.rel = slot + 1
	return w
}

func times(k int, w walk) []walk {
	out := make([]walk, k)
	for i := range out {
		out[i] = w
	}
	return out
}

func cat(ws ...[]walk) []walk {
	var out []walk
	for _, w := range ws {
		out = append(out, w...)
	}
	return out
}

// hostTable is one devops measurement: its walks, extra tags and how the
// state maps to fields.
type hostTable struct {
	id    uint64 // stream id, stable across use cases (cpu is 0 in both)
	table *schema.Table
	walks []walk
	// extra draws the table's tags after the ten host tags, appending
	// their bytes to dst.
	extra func(r *rng, h int, dst [][]byte)
	// init sets constant state (before the walks' initial values).
	init func(r *rng, st []float64)
	// emit maps state to the row's fields; nil: field i is state i
	// (integers truncated, floats rounded to 2 decimals).
	emit func(c *epochCtx, st []float64, row *format.Row)
}

const gib = 1 << 30

func hostTables(devops bool) []*hostTable {
	lookup := usecase.LookupTable
	cpu := &hostTable{id: 0, table: lookup("cpu"), walks: times(10, n(0, 1).crw(0, 100, 0, 100))}
	if !devops {
		return []*hostTable{cpu}
	}
	serial := func(r *rng, _ int, dst [][]byte) {
		b := make([]byte, 0, 11)
		for i := 0; i < 3; i++ {
			if i > 0 {
				b = append(b, '-')
			}
			v := r.IntN(1000)
			b = append(b, byte('0'+v/100), byte('0'+v/10%10), byte('0'+v%10))
		}
		dst[0] = b
	}
	portServer := func(prefix string) func(r *rng, _ int, dst [][]byte) {
		return func(r *rng, _ int, dst [][]byte) {
			dst[0] = strconv.AppendInt(nil, int64(1024+r.IntN(20000)), 10)
			dst[1] = strconv.AppendInt([]byte(prefix), int64(r.IntN(100000)), 10)
		}
	}
	mem := &hostTable{id: 4, table: lookup("mem"),
		walks: cat([]walk{{kind: constant}}, times(3, n(0, 1.0/64).crw(0, 1, 0, 1).relTo(0))),
		init: func(r *rng, st []float64) {
			st[0] = float64([]int64{8, 12, 16}[r.IntN(3)] * gib)
		},
		emit: func(_ *epochCtx, st []float64, row *format.Row) {
			total, used, cached, buffered := st[0], math.Trunc(st[1]), math.Trunc(st[2]), math.Trunc(st[3])
			avail := total - used
			row.Int[0], row.Int[1], row.Int[2], row.Int[3] = int64(total), int64(avail), int64(used), int64(avail)
			row.Int[4], row.Int[5] = int64(cached), int64(buffered)
			row.Float[6] = round(100*used/total, 100)
			row.Float[7] = round(100*avail/total, 100)
			row.Float[8] = round(100*buffered/total, 100)
		},
	}
	disk := &hostTable{id: 2, table: lookup("disk"),
		walks: []walk{n(50, 1).crw(0, 1<<40, 1<<39, 1<<39)},
		extra: func(r *rng, _ int, dst [][]byte) {
			dst[0] = diskPaths[r.IntN(len(diskPaths))]
			dst[1] = fsTypes[r.IntN(len(fsTypes))]
		},
		emit: func(_ *epochCtx, st []float64, row *format.Row) {
			const total = 1 << 40
			free := int64(st[0])
			used := total - free
			row.Int[0], row.Int[1], row.Int[2] = total, free, used
			row.Int[3] = 100 * used / total
			row.Int[4], row.Int[5], row.Int[6] = total/4096, free/4096, used/4096
		},
	}
	redisWalks := cat(
		[]walk{{kind: constant}},  // uptime_in_seconds: from the clock
		[]walk{n(5, 1).mono()},    // total_connections_received
		times(4, n(50, 1).mono()), // expired_keys .. keyspace_misses
		times(3, n(1, 1).free()),  // instantaneous_*
		times(2, n(50, 1).crw(0, 10000, 0, 0)),
		times(4, n(50, 1).crw(0, 16*gib, 8*gib, 8*gib)),
		times(1+15, n(5, 1).crw(0, 1000, 0, 0)), // mem_fragmentation_ratio and the others
	)
	redis := &hostTable{id: 8, table: lookup("redis"), walks: redisWalks, extra: portServer("redis_"),
		emit: func(c *epochCtx, st []float64, row *format.Row) {
			for i, v := range st {
				row.Int[i] = int64(v)
			}
			row.Int[0] = (c.ns - c.start) / 1e9
		},
	}
	return []*hostTable{
		cpu,
		{id: 1, table: lookup("diskio"), extra: serial,
			walks: cat(times(2, n(50, 1).mono()), times(2, n(100, 1).mono()), times(3, n(5, 1).mono()))},
		disk,
		{id: 3, table: lookup("kernel"), walks: cat([]walk{{kind: constant}}, times(5, n(5, 1).mono())),
			init: func(r *rng, st []float64) { st[0] = float64(r.IntN(240)) }},
		mem,
		{id: 5, table: lookup("net"), walks: cat(times(4, n(50, 1).mono()), times(4, n(5, 1).mono())),
			extra: func(r *rng, _ int, dst [][]byte) { dst[0] = interfaces[r.IntN(len(interfaces))] }},
		{id: 6, table: lookup("nginx"), extra: portServer("nginx_"),
			walks: cat(times(3, n(5, 1).mono()), times(4, n(5, 1).crw(0, 100, 0, 0)))},
		{id: 7, table: lookup("postgresl"),
			walks: cat(times(12, n(5, 1).crw(0, 1000, 0, 0)), []walk{n(1024, 1).crw(0, gib, 0, 0)}, times(3, n(5, 1).crw(0, 1000, 0, 0)))},
		redis,
	}
}

// hostModel is cpu-only (the cpu table) or devops (nine tables).
type hostModel struct {
	modelBase
	ht []*hostTable
}

func newHostModel(p params, devops bool) *hostModel {
	m := &hostModel{modelBase: modelBase{p: p, perGroup: 512}, ht: hostTables(devops)}
	for _, t := range m.ht {
		if len(t.walks) != t.table.Fields() && t.emit == nil {
			panic("walks do not match fields of " + t.table.Name)
		}
		m.tabs = append(m.tabs, t.table)
	}
	return m
}

// pcgState wraps a PCG so that slices of it can be addressed.
type pcgState struct{ rand.PCG }

func (m *hostModel) newGroup(t, lo, hi int) group {
	ht := m.ht[t]
	nw := len(ht.walks)
	tb := ht.table
	nTags := len(tb.Tags())
	nExtra := nTags - len(usecase.HostTags)
	g := &hostGroup{
		ht: ht, lo: lo, nw: nw, nExtra: nExtra,
		hosts: make([]host, hi-lo),
		pcg:   make([]pcgState, hi-lo),
		st:    make([]float64, (hi-lo)*nw),
		extra: make([][]byte, (hi-lo)*nExtra),
		r:     newRNG(),
	}
	if m.p.scale*len(m.ht) <= maxCachedSeries {
		g.keys = make([][]byte, hi-lo)
	}
	g.row.Tags = make([][]byte, nTags)
	g.row.Float = make([]float64, tb.Fields())
	g.row.Int = make([]int64, tb.Fields())
	g.isFloat = make([]bool, tb.Fields())
	i := 0
	for _, c := range tb.Columns[1:] {
		if !c.Tag {
			g.isFloat[i] = format.IsFloat(c.Type)
			i++
		}
	}
	g.allFloat, g.plainWalks = true, len(ht.walks) == len(g.isFloat)
	for _, f := range g.isFloat {
		g.allFloat = g.allFloat && f
	}
	for _, w := range ht.walks {
		g.plainWalks = g.plainWalks && w.kind == crw && w.normal && w.rel == 0
	}
	r := g.r
	for k := range g.hosts {
		h := lo + k
		g.hosts[k] = newHost(m.p.seed, h, r, &g.pcg[k])
		p := &g.pcg[k]
		seedPCG(&p.PCG, m.p.seed, streamSeries, ht.id, uint64(h))
		r.use(&p.PCG)
		if ht.extra != nil {
			ht.extra(r, h, g.extra[k*nExtra:(k+1)*nExtra])
		}
		st := g.st[k*nw : (k+1)*nw]
		if ht.init != nil {
			ht.init(r, st)
		}
		for j, w := range ht.walks {
			if w.kind == constant {
				continue
			}
			i1 := w.i1
			if w.rel > 0 {
				i1 *= st[w.rel-1]
			}
			if w.i0 == i1 {
				st[j] = w.i0
			} else {
				st[j] = r.uniform(w.i0, i1)
			}
		}
	}
	return g
}

// hostGroup holds the series of one host table for a range of hosts.
type hostGroup struct {
	ht      *hostTable
	lo, nw  int
	nExtra  int
	hosts   []host
	pcg     []pcgState
	st      []float64
	extra   [][]byte
	r       *rng
	row     format.Row
	isFloat []bool
	// allFloat: every field is a float; plainWalks: every walk is a
	// clamped walk with normal steps relative to nothing (cpu), which
	// epoch advances in a tight loop.
	allFloat, plainWalks bool
	name                 []byte
	keys                 [][]byte // encoded series keys (format.Row.Key), nil when not cached
}

// maxCachedSeries bounds the series whose encoded tags are cached (a few
// hundred bytes each), so that memory stays bounded at any scale.
var maxCachedSeries = 1 << 17

func (g *hostGroup) epoch(c *epochCtx, u *unit) error {
	r := g.r
	walks := g.ht.walks
	for k := range g.hosts {
		st := g.st[k*g.nw : (k+1)*g.nw]
		if c.e > 0 {
			r.use(&g.pcg[k].PCG)
			if g.plainWalks {
				for j := range st {
					w := &walks[j]
					d := w.a + w.b*r.NormFloat64()
					st[j] = clamp(st[j]+d, w.lo, w.hi)
				}
			} else {
				g.step(r, walks, st)
			}
		}
		if g.keys == nil || len(g.keys[k]) == 0 { // else the encoder writes the cached key
			g.name = strconv.AppendInt(append(g.name[:0], "host_"...), int64(g.lo+k), 10)
			g.hosts[k].fill(g.row.Tags, g.name)
			copy(g.row.Tags[len(usecase.HostTags):], g.extra[k*g.nExtra:(k+1)*g.nExtra])
		}
		switch {
		case g.ht.emit != nil:
			g.ht.emit(c, st, &g.row)
		case g.allFloat:
			for j, v := range st {
				g.row.Float[j] = round(v, 100)
			}
		default:
			for j, v := range st {
				if g.isFloat[j] {
					g.row.Float[j] = round(v, 100)
				} else {
					g.row.Int[j] = int64(v)
				}
			}
		}
		g.row.Time = c.ns
		if g.keys != nil {
			g.row.Key = &g.keys[k]
		}
		c.ent = g.lo + k
		if err := u.add(c, &g.row); err != nil {
			return err
		}
	}
	return nil
}

// step advances the walks of one series by one epoch.
func (g *hostGroup) step(r *rng, walks []walk, st []float64) {
	for j := range walks {
		w := &walks[j]
		if w.kind == constant {
			continue
		}
		b, hi := w.b, w.hi
		if w.rel > 0 {
			b *= st[w.rel-1]
			hi *= st[w.rel-1]
		}
		var d float64
		if w.normal {
			d = w.a + b*r.NormFloat64()
		} else {
			d = w.a + (b-w.a)*r.Float64()
		}
		switch w.kind {
		case crw:
			st[j] = clamp(st[j]+d, w.lo, hi)
		case mono:
			st[j] += math.Abs(d)
		case free:
			st[j] += d
		}
	}
}
