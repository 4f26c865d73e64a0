package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// Content reads each table's fingerprint in one query per table (FINAL for a
// ReplacingMergeTree): rows, distinct tag sets (uniqExact), time range, and per field the
// non-NULL count and the sum (integers summed in 64 bits and unwrapped with a float sum,
// since ClickHouse 18.16 has no Int128; floats with the sum of magnitudes; strings' byte
// lengths); and per numeric field min and max (toString: floats in round-trip text, integers
// exact).
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return map[string]*fingerprint.Table{}, nil
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) {
		fp, err := t.content(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("clickhouse: content of %q: %w", q.Table, err)
		}
		return fp, nil
	})
}

// timeNS is the SQL of column c of tb in nanoseconds since the epoch.
func (tb *table) timeNS(c string) string {
	if tb.timeUnit >= 1e9 {
		return "toInt64(toUnixTimestamp(" + c + ")) * 1000000000"
	}
	return "toUnixTimestamp64Nano(" + c + ")"
}

func (t *Target) content(ctx context.Context, q fingerprint.Query) (*fingerprint.Table, error) {
	conn, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	tb, err := describeTable(ctx, conn, t.cfg.DBName, q.Table)
	if err != nil {
		return nil, err
	}
	if tb == nil {
		return contentq.Missing(q), nil
	}
	types := map[string]schema.Type{}
	for _, c := range tb.schema.Columns {
		types[c.Name] = c.Type
	}
	fp := &fingerprint.Table{Name: q.Table, SeriesExact: true, TimeUnit: tb.timeUnit}
	tc := ident(tb.schema.Columns[0].Name)
	exprs := []string{"count()", "toInt64(min(" + tb.timeNS(tc) + "))", "toInt64(max(" + tb.timeNS(tc) + "))"}
	var lo, hi int64
	dest := []any{&fp.Rows, &lo, &hi}
	var tags []string
	for _, tag := range q.Tags {
		if _, ok := types[tag]; ok {
			tags = append(tags, ident(tag))
		}
	}
	if len(tags) > 0 {
		exprs = append(exprs, "toInt64(uniqExact("+strings.Join(tags, ", ")+"))")
		dest = append(dest, &fp.Series)
	}
	type scan struct {
		f         *fingerprint.Field
		sum, abs  float64
		lo, hi    float64
		ilo, ihi  fingerprint.Int128
		wrapped   int64
		approx    float64
		n         int64
		isInt, fl bool
	}
	for _, fq := range q.Fields {
		fp.Fields = append(fp.Fields, fingerprint.Field{Name: fq.Name, Kind: fq.Kind})
	}
	var scans []*scan
	for i, fq := range q.Fields {
		f := &fp.Fields[i]
		typ, ok := types[fq.Name]
		if !ok {
			continue
		}
		c := ident(fq.Name)
		s := &scan{f: f}
		switch typ {
		case schema.Float8, schema.Float4:
			f.Kind, f.Float4, s.fl = fingerprint.Float, typ == schema.Float4, true
			exprs = append(exprs, "toInt64(count("+c+"))", "toFloat64(ifNull(sum("+c+"), 0))", "toFloat64(ifNull(sum(abs("+c+")), 0))",
				"toFloat64(ifNull(min("+c+"), 0))", "toFloat64(ifNull(max("+c+"), 0))")
			dest = append(dest, &f.Count, &s.sum, &s.abs, &s.lo, &s.hi)
		case schema.Int8, schema.Int4:
			if fq.Kind != fingerprint.Uint && fq.Kind != fingerprint.Bool { // a boolean is stored as 1 or 0
				f.Kind = fingerprint.Int
			}
			s.isInt = true
			exprs = append(exprs, "toInt64(count("+c+"))", "toInt64(ifNull(sum(toInt64("+c+")), 0))", "toFloat64(ifNull(sum(toFloat64("+c+")), 0))",
				"ifNull(min("+c+"), 0)", "ifNull(max("+c+"), 0)")
			dest = append(dest, &f.Count, &s.wrapped, &s.approx, &s.ilo, &s.ihi)
		case schema.Text:
			f.Kind = fingerprint.String
			exprs = append(exprs, "toInt64(count("+c+"))", "toInt64(ifNull(sum(length("+c+")), 0))")
			dest = append(dest, &f.Count, &s.n)
		default:
			f.Count = -1
			continue
		}
		scans = append(scans, s)
	}
	for i, e := range exprs {
		exprs[i] = "toString(" + e + ")"
	}
	if err := scanStrings(ctx, conn, "SELECT "+strings.Join(exprs, ", ")+" FROM "+tb.from(t.cfg.DBName), dest...); err != nil {
		return nil, err
	}
	if fp.Rows > 0 {
		fp.MinTime, fp.MaxTime = lo, hi
	}
	for _, s := range scans {
		switch {
		case s.fl:
			s.f.Sum, s.f.AbsSum = s.sum, s.abs
			s.f.Extremes, s.f.Min, s.f.Max = s.f.Count > 0, s.lo, s.hi
		case s.isInt && s.f.Kind == fingerprint.Bool:
			s.f.True = s.wrapped // the sum of 1s and 0s: the true values
		case s.isInt:
			s.f.IntSum = contentq.Unwrap(s.wrapped, s.approx)
			s.f.Extremes, s.f.IntMin, s.f.IntMax = s.f.Count > 0, s.ilo, s.ihi
		default:
			s.f.Len = s.n
		}
	}
	if len(tags) == 0 {
		fp.Series = contentq.NoTagSeries(fp.Rows)
	}
	return fp, nil
}

// Footprint is the bytes on disk of the tables' active parts (system.parts bytes_on_disk;
// bytes, its name before 19.x, on older servers).
func (t *Target) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	conn, err := t.open(ctx)
	if err != nil {
		return load.Size{}, err
	}
	sz := load.Size{Method: fmt.Sprintf("system.parts bytes_on_disk of the active parts (database %s)", t.cfg.DBName)}
	names := make([]string, len(tables))
	for i, n := range tables {
		names[i] = lit(n)
	}
	stmt := "SELECT toString(sum(bytes_on_disk)) FROM system.parts WHERE active AND database = " + lit(t.cfg.DBName) +
		" AND table IN (" + strings.Join(names, ", ") + ")"
	if len(tables) == 0 {
		return sz, errors.New("clickhouse: footprint of no tables")
	}
	total, err := one(ctx, conn, stmt)
	if err != nil {
		return sz, fmt.Errorf("clickhouse: footprint: %w", err)
	}
	sz.Bytes = total
	return sz, nil
}

// scanStrings runs stmt, of one row, and parses its columns into dest (*int64, *float64,
// *fingerprint.Int128);
// each expression of stmt is wrapped in toString.
func scanStrings(ctx context.Context, conn backend, stmt string, dest ...any) error {
	rows, err := conn.rows(ctx, stmt)
	if err != nil {
		return err
	}
	if len(rows) != 1 || len(rows[0]) != len(dest) {
		return fmt.Errorf("%s: %d rows, want one of %d columns", stmt, len(rows), len(dest))
	}
	for i, d := range dest {
		cell := rows[0][i]
		switch p := d.(type) {
		case *int64:
			*p, err = strconv.ParseInt(cell, 10, 64)
		case *float64:
			*p, err = strconv.ParseFloat(cell, 64)
		case *fingerprint.Int128:
			*p, err = contentq.ParseInt128(cell)
		}
		if err != nil {
			return fmt.Errorf("%s: column %d: %w", stmt, i+1, err)
		}
	}
	return nil
}
