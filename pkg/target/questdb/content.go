package questdb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// Content (load.Target.Content) computes each table's fingerprint with
// SQL once the WAL is applied (as Count waits): one query for the rows,
// the designated timestamp's range and every field's aggregates, one for
// the distinct tag combinations. QuestDB can aggregate every kind:
//
//	DOUBLE, FLOAT       count(x), sum(x), sum(abs(x)) (FLOAT cast to DOUBLE first: Float4)
//	LONG, INT, SHORT    count(x), sum(x) (a LONG sum; near 2^63 it would
//	                    wrap, so a sum of doubles beside it decides)
//	VARCHAR, STRING     count(x), sum(length_bytes(x)) (VARCHAR: UTF-8
//	                    bytes; STRING: length() in UTF-16 units, so Len -1
//	                    unless ASCII can be assumed: it is not)
//	BOOLEAN             count(x) is every row (no NULL booleans), sum of trues
//	SYMBOL (a field)    count(x), sum(length(x)) in characters: Len -1
//
// and min(x) and max(x) of the numeric columns (a FLOAT as DOUBLE).
//
// Timestamps come back in the column's unit (TIMESTAMP: microseconds,
// TimeUnit 1000; TIMESTAMP_NS: nanoseconds).
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return nil, nil // asked whether content can be verified: it can
	}
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Table
	}
	counts, err := t.Count(ctx, names) // waits for the WAL, and says which tables exist
	if err != nil {
		return nil, err
	}
	q, err := t.withQuerier(ctx)
	if err != nil {
		return nil, err
	}
	return contentq.Each(qs, func(fq fingerprint.Query) (*fingerprint.Table, error) {
		if counts[fq.Table] == 0 {
			return &fingerprint.Table{Name: fq.Table, SeriesExact: true}, nil
		}
		return t.content(ctx, q, fq)
	})
}

type qdbColumn struct {
	typ        string
	designated bool
}

func (t *Target) content(ctx context.Context, q querier, fq fingerprint.Query) (*fingerprint.Table, error) {
	rows, err := q.query(ctx, "SELECT \"column\", type, designated FROM table_columns('"+strings.ReplaceAll(fq.Table, "'", "''")+"')")
	if err != nil {
		return nil, err
	}
	cols := map[string]qdbColumn{}
	ts := ""
	for _, r := range rows {
		if len(r) < 3 {
			continue
		}
		cols[r[0]] = qdbColumn{typ: strings.ToUpper(r[1]), designated: parseBool(r[2])}
		if parseBool(r[2]) {
			ts = r[0]
		}
	}
	if ts == "" {
		return nil, fmt.Errorf("questdb: table %q has no designated timestamp", fq.Table)
	}
	tb := &fingerprint.Table{Name: fq.Table, SeriesExact: true, TimeUnit: 1000}
	if cols[ts].typ == "TIMESTAMP_NS" {
		tb.TimeUnit = 1
	}
	sel := []string{"count()", "cast(min(" + quote(ts) + ") AS LONG)", "cast(max(" + quote(ts) + ") AS LONG)"}
	type part struct {
		field fingerprint.FieldQuery
		col   qdbColumn
		at    int // first select item
	}
	var parts []part
	for _, f := range fq.Fields {
		c, ok := cols[f.Name]
		if !ok {
			continue // not in the table: Compare reports it missing
		}
		p := part{field: f, col: c, at: len(sel)}
		x := quote(f.Name)
		switch c.typ {
		case "DOUBLE", "FLOAT":
			d := "cast(" + x + " AS DOUBLE)"
			sel = append(sel, "count("+x+")", "sum("+d+")", "sum(abs("+d+"))", "min("+d+")", "max("+d+")")
		case "LONG", "INT", "SHORT", "BYTE":
			d := "cast(" + x + " AS DOUBLE)"
			sel = append(sel, "count("+x+")", "sum("+x+")", "sum("+d+")", "sum(abs("+d+"))", "cast(min("+x+") AS LONG)", "cast(max("+x+") AS LONG)")
		case "VARCHAR":
			sel = append(sel, "count("+x+")", "sum(length_bytes("+x+"))")
		case "BOOLEAN":
			sel = append(sel, "count()", "sum(CASE WHEN "+x+" THEN 1 ELSE 0 END)")
		default: // STRING, SYMBOL and others: counted only
			sel = append(sel, "count("+x+")")
		}
		parts = append(parts, p)
	}
	res, err := q.query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+quote(fq.Table))
	if err != nil {
		return nil, err
	}
	if len(res) != 1 || len(res[0]) != len(sel) {
		return nil, fmt.Errorf("questdb: fingerprint of %q: unexpected result %v", fq.Table, res)
	}
	r := res[0]
	num := func(i int) (int64, error) {
		if r[i] == "" {
			return 0, nil // a sum over no values
		}
		return strconv.ParseInt(r[i], 10, 64)
	}
	flt := func(i int) (float64, error) {
		if r[i] == "" || r[i] == "null" {
			return 0, nil
		}
		return strconv.ParseFloat(r[i], 64)
	}
	var perr error
	must := func(v int64, err error) int64 {
		if err != nil && perr == nil {
			perr = err
		}
		return v
	}
	mustF := func(v float64, err error) float64 {
		if err != nil && perr == nil {
			perr = err
		}
		return v
	}
	tb.Rows = must(num(0))
	tb.MinTime, tb.MaxTime = must(num(1))*tb.TimeUnit, must(num(2))*tb.TimeUnit
	for _, p := range parts {
		f := fingerprint.Field{Name: p.field.Name, Kind: p.field.Kind, Count: must(num(p.at)), Len: -1}
		switch p.col.typ {
		case "DOUBLE", "FLOAT":
			f.Kind, f.Sum, f.AbsSum, f.Float4 = fingerprint.Float, mustF(flt(p.at+1)), mustF(flt(p.at+2)), p.col.typ == "FLOAT"
			f.Extremes, f.Min, f.Max = f.Count > 0, mustF(flt(p.at+3)), mustF(flt(p.at+4))
		case "LONG", "INT", "SHORT", "BYTE":
			f.Kind = fingerprint.Int
			exact := must(num(p.at + 1))
			f.Sum, f.AbsSum = mustF(flt(p.at+2)), mustF(flt(p.at+3))
			if f.AbsSum < 0x1p62 {
				f.IntSum = fingerprint.Int128FromInt64(exact)
				lo, hi := must(num(p.at+4)), must(num(p.at+5))
				f.Extremes, f.IntMin, f.IntMax = f.Count > 0, fingerprint.Int128FromInt64(lo), fingerprint.Int128FromInt64(hi)
			} else {
				f.Kind = fingerprint.Float // the LONG sum may have wrapped (and the extremes are not given as floats)
			}
		case "VARCHAR":
			f.Kind, f.Len = fingerprint.String, must(num(p.at+1))
		case "BOOLEAN":
			f.Kind, f.True = fingerprint.Bool, must(num(p.at+1))
		}
		if f.Kind == fingerprint.Float && math.IsNaN(f.Sum) {
			f.Count = -1
		}
		tb.Fields = append(tb.Fields, f)
	}
	if perr != nil {
		return nil, fmt.Errorf("questdb: fingerprint of %q: %w", fq.Table, perr)
	}
	tb.Series = 1
	var tags []string
	for _, tag := range fq.Tags {
		if _, ok := cols[tag]; ok {
			tags = append(tags, quote(tag))
		}
	}
	if len(tags) > 0 {
		res, err := q.query(ctx, "SELECT count() FROM (SELECT DISTINCT "+strings.Join(tags, ", ")+" FROM "+quote(fq.Table)+")")
		if err != nil {
			return nil, err
		}
		if len(res) != 1 || len(res[0]) != 1 {
			return nil, fmt.Errorf("questdb: series of %q: unexpected result %v", fq.Table, res)
		}
		if tb.Series, err = strconv.ParseInt(res[0][0], 10, 64); err != nil {
			return nil, fmt.Errorf("questdb: series of %q: %w", fq.Table, err)
		}
	}
	return tb, nil
}
