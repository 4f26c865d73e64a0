package influx

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// content on InfluxDB 1.x, in InfluxQL (checked on 1.6.7). One request
// carries every statement but the row count (apiV1.count) and the field
// types (SHOW FIELD KEYS):
//   - SHOW SERIES EXACT CARDINALITY FROM m: the exact number of series
//     (measurement and tag set) in the database's index;
//   - the first and the last point (ORDER BY time, LIMIT 1): the range;
//   - count(f) per field; sum(f) for floats; for integers sum(i), which
//     wraps around at 64 bits (two int64 maxima and -5 give -7), and
//     sum(i::float), from which contentq.Unwrap recovers the exact sum;
//   - min(f) and max(f) per numeric field (JSON numbers read exactly:
//     floats in Go's shortest round-trip text, integers as json.Number);
//   - count(b) WHERE b = true per boolean.
//
// InfluxQL has no string length: a string field's Len is -1. sum(abs())
// is not allowed: AbsSum stays 0 (appending bounds with |Sum| instead,
// which is the same for values of one sign). A float sum, min or max
// that is infinite cannot be written in JSON: the float sums are then
// asked one by one (floatSums) and the floats' min and max not given.
func (apiV1) content(ctx context.Context, t *Target, q fingerprint.Query) (*fingerprint.Table, error) {
	types, err := t.fieldTypes(ctx, q.Table)
	if err != nil {
		return nil, err
	}
	if len(types) == 0 {
		return contentq.Missing(q), nil
	}
	from := t.from(q.Table)
	stmts := []string{
		"SHOW SERIES EXACT CARDINALITY FROM " + quoteIdent(q.Table),
		"SELECT * FROM " + from + " ORDER BY time ASC LIMIT 1",
		"SELECT * FROM " + from + " ORDER BY time DESC LIMIT 1",
	}
	var aggs []string
	var bools, floats []int
	floatAggs := map[int]bool{} // the indexes in aggs of the float sums
	fp := &fingerprint.Table{Name: q.Table, SeriesExact: true}
	for i, f := range q.Fields {
		out := fingerprint.Field{Name: f.Name, Kind: f.Kind}
		k, ok := types[f.Name]
		n := strconv.Itoa(i)
		c := quoteIdent(f.Name)
		switch {
		case !ok: // no such field: no values
		case k == contentq.Opaque:
			out.Count = -1
		default:
			if !(k == fingerprint.Int && f.Kind == fingerprint.Uint) {
				out.Kind = k
			}
			aggs = append(aggs, "count("+c+") AS c"+n)
			switch k {
			case fingerprint.Float:
				aggs = append(aggs, "sum("+c+") AS s"+n, "min("+c+") AS m"+n, "max("+c+") AS x"+n)
				floats = append(floats, i)
				floatAggs[len(aggs)-1], floatAggs[len(aggs)-2], floatAggs[len(aggs)-3] = true, true, true
			case fingerprint.Int:
				aggs = append(aggs, "sum("+c+") AS w"+n, "sum("+c+"::float) AS a"+n, "min("+c+") AS m"+n, "max("+c+") AS x"+n)
			case fingerprint.Uint:
				aggs = append(aggs, "min("+c+") AS m"+n, "max("+c+") AS x"+n)
			case fingerprint.String:
				out.Len = -1
			case fingerprint.Bool:
				bools = append(bools, i)
				stmts = append(stmts, "SELECT count("+c+") AS t FROM "+from+" WHERE "+c+" = true")
			}
		}
		fp.Fields = append(fp.Fields, out)
	}
	if len(aggs) > 0 {
		stmts = append(stmts, "SELECT "+strings.Join(aggs, ", ")+" FROM "+from)
	}
	qr, err := t.query1(ctx, t.cfg.DBName, strings.Join(stmts, "; "), true)
	var nonFinite map[int]float64
	if err != nil && len(floats) > 0 && nonFiniteAnswer(err) != 0 {
		// A float sum beyond float64 (values near its maximum) is +Inf,
		// which the server cannot write in JSON: the whole answer is that
		// error. Each float's sum is asked alone, the rest again without
		// them.
		if nonFinite, err = t.floatSums(ctx, from, q.Fields, floats); err != nil {
			return nil, err
		}
		if len(aggs) > 0 {
			kept := aggs[:0:0]
			for j, a := range aggs {
				if !floatAggs[j] {
					kept = append(kept, a)
				}
			}
			aggs = kept
			stmts[len(stmts)-1] = "SELECT " + strings.Join(aggs, ", ") + " FROM " + from
		}
		qr, err = t.query1(ctx, t.cfg.DBName, strings.Join(stmts, "; "), true)
	}
	if err != nil {
		return nil, err
	}
	if len(qr.Results) != len(stmts) {
		return nil, fmt.Errorf("%d statements, %d results", len(stmts), len(qr.Results))
	}
	one := func(i int) (map[string]any, error) {
		r := qr.Results[i]
		if len(r.Series) == 0 || len(r.Series[0].Values) == 0 {
			return nil, nil
		}
		s := r.Series[0]
		row := map[string]any{}
		for j, col := range s.Columns {
			if j < len(s.Values[0]) {
				row[col] = s.Values[0][j]
			}
		}
		return row, nil
	}
	series, _ := one(0)
	if fp.Series, err = contentq.Int64(series["count"]); err != nil {
		return nil, fmt.Errorf("series cardinality: %v", err)
	}
	for i, dst := range []*int64{&fp.MinTime, &fp.MaxTime} {
		row, _ := one(1 + i)
		if row == nil {
			continue
		}
		s, _ := row["time"].(string)
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("time %q: %v", s, err)
		}
		*dst = tm.UnixNano()
	}
	for j, i := range bools {
		row, _ := one(3 + j)
		if fp.Fields[i].True, err = contentq.Int64(row["t"]); err != nil {
			return nil, err
		}
	}
	if len(aggs) > 0 {
		row, _ := one(len(stmts) - 1)
		for i := range fp.Fields {
			f := &fp.Fields[i]
			n := strconv.Itoa(i)
			if _, ok := types[f.Name]; !ok || f.Count < 0 {
				continue
			}
			if f.Count, err = contentq.Int64(row["c"+n]); err != nil {
				return nil, err
			}
			var ferr error
			num := func(key string) float64 {
				v, err := contentq.Float64(row[key])
				if err != nil && ferr == nil {
					ferr = fmt.Errorf("%s: %v", key, err)
				}
				return v
			}
			switch {
			case f.Kind == fingerprint.Float:
				if v, ok := nonFinite[i]; ok {
					f.Sum = v
				} else {
					f.Sum = num("s" + n)
					if f.Count > 0 {
						f.Extremes, f.Min, f.Max = true, num("m"+n), num("x"+n)
					}
				}
			case f.Kind == fingerprint.Int || f.Kind == fingerprint.Uint:
				if f.Kind == fingerprint.Int {
					w, err := contentq.Int64(row["w"+n])
					if err != nil {
						return nil, err
					}
					f.IntSum = contentq.Unwrap(w, num("a"+n))
				}
				if f.Count > 0 {
					if f.IntMin, err = contentq.Int128(row["m"+n]); err != nil {
						return nil, fmt.Errorf("min of %s: %v", f.Name, err)
					}
					if f.IntMax, err = contentq.Int128(row["x"+n]); err != nil {
						return nil, fmt.Errorf("max of %s: %v", f.Name, err)
					}
					f.Extremes = true
				}
			}
			if ferr != nil {
				return nil, ferr
			}
		}
	}
	// The points, from the field counts just taken when they are every
	// field's (each InfluxQL aggregate reads its field again: a second
	// COUNT(*) cost as much as a fifth of the rest).
	per := map[string]int64{}
	for _, f := range fp.Fields {
		if _, ok := types[f.Name]; ok && f.Count >= 0 {
			per[f.Name] = f.Count
		}
	}
	if len(per) == len(types) {
		fp.Rows, err = t.pointsOf(ctx, q.Table, per, types)
	} else {
		fp.Rows, err = (apiV1{}).count(ctx, t, q.Table)
	}
	if err != nil {
		return nil, err
	}
	return fp, nil
}

// fieldTypes is SHOW FIELD KEYS of measurement m: each field's kind
// (contentq.Opaque for a type not aggregated); empty when m has none.
func (t *Target) fieldTypes(ctx context.Context, m string) (map[string]fingerprint.Kind, error) {
	qr, err := t.Query(ctx, t.cfg.DBName, "SHOW FIELD KEYS FROM "+t.from(m))
	if err != nil {
		return nil, err
	}
	out := map[string]fingerprint.Kind{}
	for _, r := range qr.Results {
		for _, s := range r.Series {
			for _, v := range s.Values {
				if len(v) < 2 {
					continue
				}
				name, _ := v[0].(string)
				typ, _ := v[1].(string)
				out[name] = influxKind(typ)
			}
		}
	}
	return out, nil
}

// influxKind maps an InfluxDB field type name (SHOW FIELD KEYS, Flux's
// schema) to its kind.
func influxKind(typ string) fingerprint.Kind {
	switch typ {
	case "float":
		return fingerprint.Float
	case "integer":
		return fingerprint.Int
	case "unsigned":
		return fingerprint.Uint
	case "string":
		return fingerprint.String
	case "boolean":
		return fingerprint.Bool
	}
	return contentq.Opaque
}

// nonFiniteAnswer tells an answer InfluxDB 1.x could not encode because a
// value was not finite ("json: unsupported value: +Inf"): +1, -1, or 2 for
// NaN; 0 for any other error.
func nonFiniteAnswer(err error) int {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unsupported value: +Inf"):
		return 1
	case strings.Contains(msg, "unsupported value: -Inf"):
		return -1
	case strings.Contains(msg, "unsupported value: NaN"):
		return 2
	}
	return 0
}

// floatSums asks each float field's sum alone: the sum, or the infinity
// (or NaN) the server could not encode.
func (t *Target) floatSums(ctx context.Context, from string, fields []fingerprint.FieldQuery, floats []int) (map[int]float64, error) {
	out := map[int]float64{}
	for _, i := range floats {
		out[i] = 0 // no values: no series in the answer
		qr, err := t.query1(ctx, t.cfg.DBName, "SELECT sum("+quoteIdent(fields[i].Name)+") AS s FROM "+from, true)
		switch sign := 0; {
		case err != nil:
			if sign = nonFiniteAnswer(err); sign == 0 {
				return nil, err
			}
			out[i] = math.Inf(sign)
			if sign == 2 {
				out[i] = math.NaN()
			}
		case len(qr.Results) == 1 && len(qr.Results[0].Series) > 0 && len(qr.Results[0].Series[0].Values) > 0:
			s := qr.Results[0].Series[0]
			for j, col := range s.Columns {
				if col == "s" && j < len(s.Values[0]) {
					v, err := contentq.Float64(s.Values[0][j])
					if err != nil {
						return nil, fmt.Errorf("sum of %s: %v", fields[i].Name, err)
					}
					out[i] = v
				}
			}
		}
	}
	return out, nil
}
