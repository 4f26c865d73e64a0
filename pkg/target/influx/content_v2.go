package influx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// content on InfluxDB 2.x, in one Flux script of several yields (checked
// on 2.7.12), besides the row count (v2CountQuery):
//   - n: per field, count() per series summed (a count() after
//     group(columns: ["_field"]) misses empty strings on 2.7.12);
//   - t0, t1: the first and the last time;
//   - ser: the distinct tag sets (the group key less _field), exact;
//   - sum, min and max per float field (CSV text that round-trips);
//   - per integer field sum, min and max (exact, as text): Flux's
//     integer sum wraps around at 64 bits, so when count × the largest
//     magnitude could reach 2^62 a second script sums toFloat() values,
//     from which contentq.Unwrap recovers the exact sum;
//   - per boolean the sum of toInt() (true counts 1).
//
// The fields are aggregated by the kind the input gave them (Flux has no
// cheap type lookup). String fields are not checked (Count -1): Flux
// reads an empty string as null in some paths (2.7.12: count() missed
// "" in fresh points and counted it once they were compacted), and
// strings.strlen counts runes, not bytes. AbsSum stays 0 (appending
// bounds with |Sum| instead, the same for values of one sign).
func (apiV2) content(ctx context.Context, t *Target, q fingerprint.Query) (*fingerprint.Table, error) {
	var floats, ints, bools []string
	for _, f := range q.Fields {
		switch f.Kind {
		case fingerprint.Float:
			floats = append(floats, f.Name)
		case fingerprint.Int, fingerprint.Uint:
			ints = append(ints, f.Name)
		case fingerprint.Bool:
			bools = append(bools, f.Name)
		}
	}
	m := fluxString(q.Table)
	var s strings.Builder
	s.WriteString(`src = (fn) => from(bucket: ` + fluxString(t.cfg.bucket()) + `)
  |> range(start: 1677-09-21T00:12:44Z, stop: 2262-04-11T23:47:16Z)
  |> filter(fn: fn)
data = src(fn: (r) => r._measurement == ` + m + `)
data |> count() |> group(columns: ["_field"]) |> sum() |> yield(name: "n")
data |> first() |> keep(columns: ["_time"]) |> group() |> min(column: "_time") |> yield(name: "t0")
data |> last() |> keep(columns: ["_time"]) |> group() |> max(column: "_time") |> yield(name: "t1")
data |> first() |> drop(columns: ["_value", "_field", "_time"]) |> group(columns: ["_start", "_stop"], mode: "except")
  |> first(column: "_measurement") |> group() |> count(column: "_measurement") |> yield(name: "ser")
`)
	// Each kind's fields read on their own: a filter that meets fields of
	// other types fails to type-check.
	each := func(fields []string, pipe, name string) {
		if len(fields) == 0 {
			return
		}
		var or []string
		for _, f := range fields {
			or = append(or, "r._field == "+fluxString(f))
		}
		s.WriteString(`src(fn: (r) => r._measurement == ` + m + ` and (` + strings.Join(or, " or ") + `)) |> ` + pipe + ` |> yield(name: "` + name + `")` + "\n")
	}
	each(floats, `sum() |> group(columns: ["_field"]) |> sum()`, "sum")
	each(floats, `min() |> group(columns: ["_field"]) |> min()`, "fmin")
	each(floats, `max() |> group(columns: ["_field"]) |> max()`, "fmax")
	each(ints, `sum() |> group(columns: ["_field"]) |> sum()`, "isum")
	each(ints, `min() |> group(columns: ["_field"]) |> min()`, "imin")
	each(ints, `max() |> group(columns: ["_field"]) |> max()`, "imax")
	each(bools, `toInt() |> sum() |> group(columns: ["_field"]) |> sum()`, "true")
	res, err := t.flux(ctx, s.String())
	if err != nil {
		return nil, err
	}
	fp := &fingerprint.Table{Name: q.Table, SeriesExact: true}
	one := func(name, field string) string { return res[name][field] }
	for _, f := range q.Fields {
		out := fingerprint.Field{Name: f.Name, Kind: f.Kind}
		if out.Count, err = intOrZero(one("n", f.Name)); err != nil {
			return nil, err
		}
		switch f.Kind {
		case fingerprint.Float:
			out.Sum, err = floatOrZero(one("sum", f.Name))
			if out.Count > 0 && err == nil {
				var err1, err2 error
				out.Min, err1 = floatOrZero(one("fmin", f.Name))
				out.Max, err2 = floatOrZero(one("fmax", f.Name))
				out.Extremes, err = true, errors.Join(err1, err2)
			}
		case fingerprint.String:
			// Flux reads an empty string as null in some paths and not
			// in others (count() of fresh points missed it; the same
			// points compacted were counted): a count would fail falsely.
			out.Count, out.Len = -1, -1
		case fingerprint.Bool:
			out.True, err = intOrZero(one("true", f.Name))
		}
		if err != nil {
			return nil, err
		}
		fp.Fields = append(fp.Fields, out)
	}
	var overflow []string
	for i := range fp.Fields {
		f := &fp.Fields[i]
		if f.Kind != fingerprint.Int && f.Kind != fingerprint.Uint || f.Count == 0 {
			continue
		}
		w, err := wrappedInt(one("isum", f.Name))
		if err != nil {
			return nil, err
		}
		lo, err1 := floatOrZero(one("imin", f.Name))
		hi, err2 := floatOrZero(one("imax", f.Name))
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		var err3, err4 error
		f.IntMin, err3 = contentq.ParseInt128(one("imin", f.Name))
		f.IntMax, err4 = contentq.ParseInt128(one("imax", f.Name))
		if err := errors.Join(err3, err4); err != nil {
			return nil, err
		}
		f.Extremes = true
		if float64(f.Count)*math.Max(math.Abs(lo), math.Abs(hi)) < 1<<62 {
			f.IntSum = contentq.Unwrap(w, float64(w)) // cannot have wrapped
			if f.Kind == fingerprint.Uint {
				f.IntSum = fingerprint.Int128{Lo: uint64(w)}
			}
			continue
		}
		overflow = append(overflow, f.Name)
		f.IntSum = fingerprint.Int128{Lo: uint64(w)} // until the float sum unwraps it
	}
	if len(overflow) > 0 {
		s.Reset()
		s.WriteString(`src = (fn) => from(bucket: ` + fluxString(t.cfg.bucket()) + `)
  |> range(start: 1677-09-21T00:12:44Z, stop: 2262-04-11T23:47:16Z)
  |> filter(fn: fn)
`)
		each(overflow, `toFloat() |> sum() |> group(columns: ["_field"]) |> sum()`, "fsum")
		approx, err := t.flux(ctx, s.String())
		if err != nil {
			return nil, err
		}
		for i := range fp.Fields {
			f := &fp.Fields[i]
			if a, ok := approx["fsum"][f.Name]; ok {
				x, err := floatOrZero(a)
				if err != nil {
					return nil, err
				}
				f.IntSum = contentq.Unwrap(int64(f.IntSum.Lo), x)
			}
		}
	}
	if fp.Series, err = intOrZero(res["ser"][""]); err != nil {
		return nil, err
	}
	for _, tm := range []struct {
		name string
		dst  *int64
	}{{"t0", &fp.MinTime}, {"t1", &fp.MaxTime}} {
		if v := res[tm.name][""]; v != "" {
			x, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return nil, fmt.Errorf("time %q: %v", v, err)
			}
			*tm.dst = x.UnixNano()
		}
	}
	if fp.Rows, err = (apiV2{}).count(ctx, t, q.Table); err != nil {
		return nil, err
	}
	return fp, nil
}

// flux runs a Flux script and returns, per yield, each row's value by
// its _field ("" for rows without one): _value, or _time or
// _measurement when the row has no _value.
func (t *Target) flux(ctx context.Context, script string) (map[string]map[string]string, error) {
	body, err := t.postFlux(ctx, t.query, script)
	if err != nil {
		return nil, err
	}
	f := newFluxReader(body)
	out := map[string]map[string]string{}
	for {
		_, err := f.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		get := func(c string) string {
			v, _ := f.get(c)
			return v
		}
		y := get("result")
		if out[y] == nil {
			out[y] = map[string]string{}
		}
		v := get("_value")
		if _, ok := f.cols["_value"]; !ok {
			v = get("_time") + get("_measurement")
		}
		out[y][get("_field")] = v
	}
}

func intOrZero(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

func floatOrZero(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseFloat(s, 64)
}

// wrappedInt reads an int64 or uint64 sum as its low 64 bits.
func wrappedInt(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	u, err := strconv.ParseUint(s, 10, 64)
	return int64(u), err
}
