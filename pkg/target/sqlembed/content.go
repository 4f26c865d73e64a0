package sqlembed

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// Aggregates are an engine's SQL for the content fingerprint.
type Aggregates struct {
	// TimeNS is the expression of column c's value in nanoseconds since
	// the epoch; TimeUnit the resolution the engine stores (fingerprint).
	TimeNS   func(c string) string
	TimeUnit int64
	// IntSum is the exact sum of integer column c, as text. Nil: the
	// engine's sum is 64 bits wide and fails on overflow (SQLite's
	// "integer overflow" for two int64 maxima), so the sum is taken as
	// two that cannot overflow (contentq.Halves).
	IntSum func(c string) string
	// OctetLen is the length in bytes of text column c.
	OctetLen func(c string) string
}

// Content reads each table's fingerprint: rows,
// distinct tag sets, time range, and per field the non-NULL count and the
// sum (integers exact, floats with the sum of magnitudes, strings' byte
// lengths), and min and max of the numeric fields (scanned in binary:
// exact).
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return map[string]*fingerprint.Table{}, nil
	}
	db, err := t.open()
	if err != nil {
		return nil, err
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) {
		fp, err := content(ctx, db, t.eng, q)
		if err != nil {
			return nil, fmt.Errorf("%s: content of %q: %w", t.eng.Name(), q.Table, err)
		}
		return fp, nil
	})
}

func content(ctx context.Context, db *sql.DB, eng Engine, q fingerprint.Query) (*fingerprint.Table, error) {
	a := eng.Aggregates()
	cols, err := tableInfo(ctx, db, eng, q.Table)
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return contentq.Missing(q), nil
	}
	types := map[string]schema.Type{}
	for _, c := range cols {
		types[c.name] = typeOf(c.typ)
	}
	tm := q.Time
	if _, ok := types[tm]; !ok {
		tm = cols[0].name
	}
	qt := schema.QuoteIdent(q.Table)
	fp := &fingerprint.Table{Name: q.Table, SeriesExact: true, TimeUnit: a.TimeUnit}
	tc := schema.QuoteIdent(tm)
	if types[tm] == schema.Timestamp {
		tc = a.TimeNS(tc)
	} else { // a table without a time column (TSBS's tags): its first column
		tc = "CAST(" + tc + " AS BIGINT)"
	}
	exprs := []string{"count(*)", "min(" + tc + ")", "max(" + tc + ")"}
	var lo, hi sql.NullInt64
	dest := []any{&fp.Rows, &lo, &hi}
	type scan struct {
		f        *fingerprint.Field
		sum, abs sql.NullFloat64
		fmin     sql.NullFloat64
		fmax     sql.NullFloat64
		imin     sql.NullInt64
		imax     sql.NullInt64
		text     sql.NullString
		n, lo    sql.NullInt64
		halves   bool
	}
	for _, fq := range q.Fields {
		fp.Fields = append(fp.Fields, fingerprint.Field{Name: fq.Name, Kind: fq.Kind})
	}
	scans := make([]*scan, 0, len(q.Fields))
	for i, fq := range q.Fields {
		f := &fp.Fields[i]
		typ, ok := types[fq.Name]
		if !ok {
			continue
		}
		c := schema.QuoteIdent(fq.Name)
		s := &scan{f: f}
		exprs = append(exprs, "count("+c+")")
		dest = append(dest, &f.Count)
		switch typ {
		case schema.Float8, schema.Float4:
			f.Kind, f.Float4 = fingerprint.Float, typ == schema.Float4
			exprs = append(exprs, "sum("+c+")", "sum(abs("+c+"))", "min("+c+")", "max("+c+")")
			dest = append(dest, &s.sum, &s.abs, &s.fmin, &s.fmax)
		case schema.Int8, schema.Int4:
			switch fq.Kind {
			case fingerprint.Bool: // stored as 1 and 0: the sum counts the true values
			case fingerprint.Uint:
			default:
				f.Kind = fingerprint.Int
			}
			if a.IntSum == nil {
				s.halves = true
				exprs = append(exprs, "sum("+c+" >> 32)", "sum("+c+" & 4294967295)")
				dest = append(dest, &s.n, &s.lo)
			} else {
				exprs = append(exprs, a.IntSum(c))
				dest = append(dest, &s.text)
			}
			exprs = append(exprs, "min("+c+")", "max("+c+")")
			dest = append(dest, &s.imin, &s.imax)
		case schema.Text:
			f.Kind = fingerprint.String
			exprs = append(exprs, "sum("+a.OctetLen(c)+")")
			dest = append(dest, &s.n)
		default:
			f.Count = -1
			exprs, dest = exprs[:len(exprs)-1], dest[:len(dest)-1]
			continue
		}
		scans = append(scans, s)
	}
	if err := db.QueryRowContext(ctx, "SELECT "+strings.Join(exprs, ", ")+" FROM "+qt).Scan(dest...); err != nil {
		return nil, err
	}
	fp.MinTime, fp.MaxTime = lo.Int64, hi.Int64
	for _, s := range scans {
		switch {
		case s.f.Kind == fingerprint.Float:
			s.f.Sum, s.f.AbsSum = s.sum.Float64, s.abs.Float64
		case s.f.Kind == fingerprint.String:
			s.f.Len = s.n.Int64
		case s.halves:
			s.f.IntSum = contentq.Halves(s.n.Int64, s.lo.Int64)
		case s.text.Valid:
			x, err := contentq.ParseInt128(s.text.String)
			if err != nil {
				return nil, err
			}
			s.f.IntSum = x
		}
		switch {
		case s.f.Kind == fingerprint.Bool:
			s.f.True, s.f.IntSum = s.f.IntSum.Big().Int64(), fingerprint.Int128{}
		case s.fmin.Valid && s.fmax.Valid:
			s.f.Extremes, s.f.Min, s.f.Max = true, s.fmin.Float64, s.fmax.Float64
		case s.imin.Valid && s.imax.Valid:
			s.f.Extremes = true
			s.f.IntMin, s.f.IntMax = fingerprint.Int128FromInt64(s.imin.Int64), fingerprint.Int128FromInt64(s.imax.Int64)
		}
	}
	var tags []string
	for _, tag := range q.Tags {
		if _, ok := types[tag]; ok {
			tags = append(tags, schema.QuoteIdent(tag))
		}
	}
	if len(tags) == 0 {
		fp.Series = contentq.NoTagSeries(fp.Rows)
		return fp, nil
	}
	stmt := "SELECT count(*) FROM (SELECT DISTINCT " + strings.Join(tags, ", ") + " FROM " + qt + ") s"
	if err := db.QueryRowContext(ctx, stmt).Scan(&fp.Series); err != nil {
		return nil, err
	}
	return fp, nil
}
