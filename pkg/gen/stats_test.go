package gen

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

type point struct {
	m      string
	tags   map[string]string
	fields map[string]float64
	ints   map[string]bool
	ns     int64
}

// decodeILP decodes every line with the line-protocol Decoder, re-encodes it
// with the Encoder and requires the same bytes.
func decodeILP(t *testing.T, b []byte) []point {
	t.Helper()
	var pts []point
	var enc lineprotocol.Encoder
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 {
			continue
		}
		dec := lineprotocol.NewDecoderWithBytes(line)
		if !dec.Next() {
			t.Fatalf("line %d: no point", i+1)
		}
		m, err := dec.Measurement()
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		p := point{m: string(m), tags: map[string]string{}, fields: map[string]float64{}, ints: map[string]bool{}}
		enc.Reset()
		enc.StartLine(p.m)
		for {
			k, v, err := dec.NextTag()
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if k == nil {
				break
			}
			p.tags[string(k)] = string(v)
			enc.AddTag(string(k), string(v))
		}
		for {
			k, v, err := dec.NextField()
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if k == nil {
				break
			}
			switch v.Kind() {
			case lineprotocol.Float:
				p.fields[string(k)] = v.FloatV()
			case lineprotocol.Int:
				p.fields[string(k)] = float64(v.IntV())
				p.ints[string(k)] = true
			default:
				t.Fatalf("line %d: field %s of kind %v", i+1, k, v.Kind())
			}
			enc.AddField(string(k), v)
		}
		ts, err := dec.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		p.ns = ts.UnixNano()
		enc.EndLine(ts)
		if err := enc.Err(); err != nil {
			t.Fatalf("line %d: Encoder: %v", i+1, err)
		}
		if !bytes.Equal(enc.Bytes(), line) {
			t.Fatalf("line %d differs from the Encoder's:\n%s%s", i+1, line, enc.Bytes())
		}
		pts = append(pts, p)
	}
	return pts
}

func decimals(v float64, d int) bool {
	s := math.Pow(10, float64(d))
	return math.Round(v*s)/s == v
}

func TestCPUOnlyStats(t *testing.T) {
	cfg := Config{UseCase: usecase.CPUOnly, Format: format.ILP, Seed: 7, Scale: 60, End: DefaultStart.Add(time.Hour)}
	pts := decodeILP(t, generate(t, cfg))
	if len(pts) != 60*360 {
		t.Fatalf("%d rows, want %d", len(pts), 60*360)
	}
	hosts := map[string]bool{}
	regionsSeen := map[string]bool{}
	last := map[string]float64{}
	var sum, sum2, n float64
	for i, p := range pts {
		if want := DefaultStart.UnixNano() + int64(i/60)*10e9; p.ns != want {
			t.Fatalf("row %d: time %d, want %d (epoch-major order)", i, p.ns, want)
		}
		if len(p.tags) != 10 || len(p.fields) != 10 {
			t.Fatalf("row %d: %d tags, %d fields", i, len(p.tags), len(p.fields))
		}
		h := p.tags["hostname"]
		hosts[h] = true
		regionsSeen[p.tags["region"]] = true
		if !strings.HasPrefix(p.tags["datacenter"], p.tags["region"]) {
			t.Fatalf("datacenter %s not in region %s", p.tags["datacenter"], p.tags["region"])
		}
		for k, v := range p.fields {
			if v < 0 || v > 100 || !decimals(v, 2) || p.ints[k] {
				t.Fatalf("row %d: %s=%v", i, k, v)
			}
			if k == "usage_user" {
				if prev, ok := last[h]; ok && v > 0.5 && v < 99.5 && prev > 0.5 && prev < 99.5 {
					d := v - prev
					sum += d
					sum2 += d * d
					n++
				}
				last[h] = v
			}
		}
	}
	if len(hosts) != 60 {
		t.Errorf("%d hosts, want 60", len(hosts))
	}
	if len(regionsSeen) < 7 {
		t.Errorf("only %d regions among 60 hosts", len(regionsSeen))
	}
	// steps of a N(0,1) random walk (away from the clamps)
	mean, sd := sum/n, math.Sqrt(sum2/n-(sum/n)*(sum/n))
	if math.Abs(mean) > 0.05 || math.Abs(sd-1) > 0.05 {
		t.Errorf("usage_user steps: mean %.3f sd %.3f, want N(0,1)", mean, sd)
	}
}

func TestDevOpsStats(t *testing.T) {
	const scale, epochs = 20, 100
	cfg := Config{UseCase: usecase.DevOps, Format: format.ILP, Seed: 3, Scale: scale, End: DefaultStart.Add(epochs * 10 * time.Second)}
	pts := decodeILP(t, generate(t, cfg))
	tables, _ := usecase.Tables(usecase.DevOps)
	if len(pts) != scale*epochs*len(tables) {
		t.Fatalf("%d rows, want %d", len(pts), scale*epochs*len(tables))
	}
	counts := map[string]int{}
	prev := map[string]map[string]float64{}
	for i, p := range pts {
		// epoch-major, then measurement, then host
		e := i / (scale * len(tables))
		ti := i % (scale * len(tables)) / scale
		if p.m != tables[ti].Name || p.ns != DefaultStart.UnixNano()+int64(e)*10e9 {
			t.Fatalf("row %d: %s at %d, want %s at epoch %d", i, p.m, p.ns, tables[ti].Name, e)
		}
		counts[p.m]++
		if len(p.fields) != tables[ti].Fields() || len(p.tags) != len(tables[ti].Tags()) {
			t.Fatalf("row %d (%s): %d fields %d tags", i, p.m, len(p.fields), len(p.tags))
		}
		key := p.m + "/" + p.tags["hostname"]
		f := p.fields
		switch p.m {
		case "mem":
			if f["used"]+f["available"] != f["total"] || f["free"] != f["available"] {
				t.Fatalf("mem: %v", f)
			}
			if tot := f["total"]; tot != 8<<30 && tot != 12<<30 && tot != 16<<30 {
				t.Fatalf("mem total %v", tot)
			}
			if math.Abs(f["used_percent"]+f["available_percent"]-100) > 0.011 || p.ints["used_percent"] {
				t.Fatalf("mem percents %v %v", f["used_percent"], f["available_percent"])
			}
		case "disk":
			if f["used"]+f["free"] != f["total"] || f["used_percent"] < 0 || f["used_percent"] > 100 {
				t.Fatalf("disk: %v", f)
			}
		case "redis":
			if want := float64(e * 10); f["uptime_in_seconds"] != want {
				t.Fatalf("redis uptime %v, want %v", f["uptime_in_seconds"], want)
			}
		case "diskio", "net":
			// monotonic counters
			if old, ok := prev[key]; ok {
				for k, v := range f {
					if v < old[k] {
						t.Fatalf("%s.%s went down: %v -> %v", p.m, k, old[k], v)
					}
				}
			}
			prev[key] = f
		case "nginx", "postgresl":
			for k, v := range f {
				if v < 0 || v > 1<<30 {
					t.Fatalf("%s.%s = %v", p.m, k, v)
				}
			}
		}
		for k := range f {
			if !p.ints[k] && !(p.m == "cpu" || strings.HasSuffix(k, "_percent")) {
				t.Fatalf("%s.%s is not an integer", p.m, k)
			}
		}
	}
	for _, tb := range tables {
		if counts[tb.Name] != scale*epochs {
			t.Errorf("%s: %d rows, want %d", tb.Name, counts[tb.Name], scale*epochs)
		}
	}
}

// TestIoTIrregularity checks the rates of missing, delayed and NULL rows.
func TestIoTIrregularity(t *testing.T) {
	const scale, epochs = 60, 1500
	cfg := Config{UseCase: usecase.IoT, Format: format.ILP, Seed: 11, Scale: scale, End: DefaultStart.Add(epochs * 10 * time.Second)}
	pts := decodeILP(t, generate(t, cfg))
	type key struct{ m, name string }
	seen := map[key]map[int64]bool{}
	lastNs := map[key]int64{}
	var rows, nullField, nullTag, backwards float64
	fieldsOf := map[string]int{"readings": 10, "diagnostics": 6}
	end := cfg.End.UnixNano()
	for i, p := range pts {
		name, ok := p.tags["name"]
		if !ok {
			t.Fatalf("row %d: NULL name", i)
		}
		k := key{p.m, name}
		if seen[k] == nil {
			seen[k] = map[int64]bool{}
		}
		if seen[k][p.ns] {
			t.Fatalf("row %d: %v at %d twice", i, k, p.ns)
		}
		seen[k][p.ns] = true
		if p.ns < DefaultStart.UnixNano() || p.ns >= end || (p.ns-DefaultStart.UnixNano())%10e9 != 0 {
			t.Fatalf("row %d: time %d", i, p.ns)
		}
		if p.ns < lastNs[k] {
			backwards++
		}
		lastNs[k] = max(lastNs[k], p.ns)
		rows++
		switch len(p.fields) {
		case fieldsOf[p.m]:
		case fieldsOf[p.m] - 1:
			nullField++
		default:
			t.Fatalf("row %d: %d fields", i, len(p.fields))
		}
		switch len(p.tags) {
		case 5:
		case 4:
			nullTag++
		default:
			t.Fatalf("row %d: %d tags", i, len(p.tags))
		}
		f := p.fields
		if p.m == "readings" {
			if math.Abs(f["latitude"]) > 90 || !decimals(f["latitude"], 5) || f["velocity"] < 0 || f["velocity"] > 100 {
				t.Fatalf("readings %v", f)
			}
		} else if s, ok := f["status"]; ok && (!p.ints["status"] || s < 0 || s > 5) {
			t.Fatalf("status %v", s)
		}
	}
	slots := float64(2 * scale * epochs)
	within := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", what, got, want, tol)
		} else {
			t.Logf("%s: %.4f (want %.4f)", what, got, want)
		}
	}
	runShare := IoTRunStart * 11 / (1 + IoTRunStart*10)
	within("missing rows", 1-rows/slots, runShare+(1-runShare)*IoTSingleMissing, 0.01)
	within("rows with a NULL field", nullField/rows, IoTNullField, 0.01)
	within("rows with a NULL tag", nullTag/rows, IoTNullTag, 0.003)
	within("rows written late (time goes backwards)", backwards/rows, IoTDelayed, 0.015)
	// missing runs: count gaps of at least 5 consecutive epochs, rare by
	// chance with 10% single drops (1e-5 per slot)
	var longGaps float64
	for _, ts := range seen {
		gap := 0
		for e := int64(0); e < epochs; e++ {
			if ts[DefaultStart.UnixNano()+e*10e9] {
				if gap >= 5 {
					longGaps++
				}
				gap = 0
			} else {
				gap++
			}
		}
	}
	if want := slots * IoTRunStart * 16.0 / 19; longGaps < want/2 || longGaps > want*2 {
		t.Errorf("%v missing runs of 5+ epochs, want about %.0f", longGaps, want)
	}
}

func TestWeatherStats(t *testing.T) {
	for _, month := range []time.Month{time.January, time.July} {
		t.Run(month.String(), func(t *testing.T) {
			start := time.Date(2016, month, 1, 0, 0, 0, 0, time.UTC)
			cfg := Config{UseCase: usecase.Weather, Format: format.ILP, Seed: 5, Scale: 3000, Start: start, End: start.Add(48 * time.Hour)}
			pts := decodeILP(t, generate(t, cfg))
			if len(pts) != 3000*48 {
				t.Fatalf("%d rows", len(pts))
			}
			type acc struct{ s, n float64 }
			var tropics, north, south, west, trade, day, night acc
			add := func(a *acc, v float64) { a.s += v; a.n++ }
			var zeroPrecip float64
			prevID := -1
			for i, p := range pts {
				f := p.fields
				id := 0
				for _, c := range p.tags["location_id"] {
					id = id*10 + int(c-'0')
				}
				if i%3000 != 0 && id <= prevID {
					t.Fatalf("row %d: location %d after %d", i, id, prevID)
				}
				prevID = id
				lat, lon := f["latitude"], f["longitude"]
				if wl, wo := LatLon(id); wl != lat || wo != lon {
					t.Fatalf("location %d at %v,%v, want %v,%v", id, lat, lon, wl, wo)
				}
				temp := f["temperature_2m"]
				if temp < -80 || temp > 60 {
					t.Fatalf("temperature %v at %v", temp, lat)
				}
				if c := f["total_cloud_cover"]; c < 0 || c > 1 {
					t.Fatalf("cloud %v", c)
				}
				pr, sn := f["total_precipitation"], f["snowfall"]
				if pr < 0 || sn < 0 || sn > pr || (sn > 0 && temp >= 0) {
					t.Fatalf("precip %v snow %v at %v°C", pr, sn, temp)
				}
				if pr == 0 {
					zeroPrecip++
				}
				a := math.Abs(lat)
				switch {
				case a < 10:
					add(&tropics, temp)
					solar := math.Mod(float64(p.ns)/3600e9+lon/15, 24)
					if solar > 13 && solar < 17 {
						add(&day, temp)
					} else if solar > 1 && solar < 5 {
						add(&night, temp)
					}
					add(&trade, f["zonal_wind_10m"])
				case lat > 40 && lat < 60:
					add(&north, temp)
					add(&west, f["zonal_wind_10m"])
				case lat < -40 && lat > -60:
					add(&south, temp)
					add(&west, f["zonal_wind_10m"])
				}
			}
			m := func(a acc) float64 { return a.s / a.n }
			if v := m(tropics); v < 22 || v > 32 {
				t.Errorf("tropics mean %.1f°C, want about 27", v)
			}
			if month == time.January && m(north) >= m(south) || month == time.July && m(north) <= m(south) {
				t.Errorf("%v: northern mid-latitudes %.1f°C, southern %.1f°C: seasons wrong", month, m(north), m(south))
			}
			if m(day) <= m(night)+2 {
				t.Errorf("tropical afternoon %.1f°C not warmer than night %.1f°C", m(day), m(night))
			}
			if m(west) <= 2 || m(trade) >= -1 {
				t.Errorf("zonal wind: mid-latitudes %.1f (want westerly > 0), tropics %.1f (want easterly < 0)", m(west), m(trade))
			}
			if z := zeroPrecip / float64(len(pts)); z < 0.8 || z > 0.995 {
				t.Errorf("share of dry hours %.3f, want most but not all", z)
			}
		})
	}
}
