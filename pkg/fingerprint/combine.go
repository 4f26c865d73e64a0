package fingerprint

import "sort"

// Combine is the expectation after appending run to a table that held
// before (what the database answered before the load): "before + this run
// = after". Rows, non-NULL counts and sums add; the time range and the
// fields' extremes are the union of the two (extremes unknown when before
// did not give them); series cannot be added, since the run's series may be
// ones the table held, so after the load there are between the larger of
// the two counts and their sum, and that range is all Compare checks.
// On an overwriting database (overwrites) the run's rows may also have
// replaced points the table held: the rows are then only bounded (at least
// what the table held and the run's distinct keys, at most the sum) and
// field aggregates are unproven. A field of the run that before does not
// list was not asked for before the load: it is not compared (Count -1).
func Combine(before *Table, run *Expect, overwrites bool) *Expect {
	if before == nil || before.Rows == 0 {
		return run
	}
	e := &Expect{Table: Table{Name: run.Name}, FieldsUnproven: run.FieldsUnproven, TimeUnproven: run.TimeUnproven}
	e.Rows = before.Rows + run.Rows
	e.RowsLow = before.Rows + run.RowsLow
	if overwrites {
		e.RowsLow = max(before.Rows, run.RowsLow)
		if e.FieldsUnproven == "" {
			e.FieldsUnproven = "the table held rows before the load, which rows with the same (series, time) key replace on an overwriting database"
		}
	}
	e.MinTime, e.MaxTime = before.MinTime, before.MaxTime
	if run.Rows > 0 {
		e.MinTime, e.MaxTime = min(e.MinTime, run.MinTime), max(e.MaxTime, run.MaxTime)
	}
	runLow, runHigh := run.Series, run.Series
	if run.SeriesLow != 0 || run.SeriesHigh != 0 {
		runLow, runHigh = run.SeriesLow, run.SeriesHigh
	}
	e.SeriesLow = max(before.Series, runLow)
	e.SeriesHigh = before.Series + runHigh
	e.Series = e.SeriesHigh
	e.SeriesExact = before.SeriesExact && run.SeriesExact

	fields := make(map[string]*Field)
	for _, f := range run.Fields {
		f := f
		fields[f.Name] = &f
	}
	asked := make(map[string]bool, len(before.Fields))
	for _, b := range before.Fields {
		asked[b.Name] = true
	}
	for n, f := range fields {
		if !asked[n] {
			f.Count = -1 // what the table held of it before is not known
		}
	}
	for _, b := range before.Fields {
		f := fields[b.Name]
		if f == nil {
			f = &Field{Name: b.Name, Kind: b.Kind}
			fields[b.Name] = f
		}
		addField(f, &b)
	}
	for _, f := range fields {
		e.Fields = append(e.Fields, *f)
	}
	sort.Slice(e.Fields, func(i, j int) bool { return e.Fields[i].Name < e.Fields[j].Name })
	return e
}

// addField adds what the database held before (b) to what the run read.
func addField(f, b *Field) {
	if f.Count < 0 || b.Count < 0 {
		f.Count = -1
		return
	}
	runCount := f.Count
	f.Count += b.Count
	switch {
	case b.Kind == Float && f.Kind != Float:
		// Stored as floats before: the expectation becomes a float sum,
		// and the extremes the floats the run's integers round to.
		f.Sum, f.Kind = f.IntSum.Float64(), Float
		f.Min, f.Max = f.IntMin.Float64(), f.IntMax.Float64()
		fallthrough
	case f.Kind == Float:
		bs := b.Sum
		if b.Kind != Float {
			bs = b.IntSum.Float64()
		}
		// A database that did not give AbsSum: |Sum| is the best bound known.
		ba := b.AbsSum
		if ba < abs(bs) {
			ba = abs(bs)
		}
		f.Sum += bs
		f.AbsSum += ba
	case f.Kind == Int || f.Kind == Uint:
		f.IntSum = f.IntSum.Add(b.IntSum)
		f.AbsSum += b.AbsSum
	case f.Kind == String:
		if b.Len < 0 || f.Len < 0 {
			f.Len = -1
		} else {
			f.Len += b.Len
		}
	case f.Kind == Bool:
		f.True += b.True
	}
	addExtremes(f, b, runCount)
}

// addExtremes widens f's extremes (the run's, of runCount values, already
// in f's kind) by b's: the union when both are known; b's alone when the
// run had no values of the field; unknown when b had values and did not
// give them.
func addExtremes(f, b *Field, runCount int64) {
	if !numeric(f.Kind) || b.Count == 0 {
		return
	}
	if !b.Extremes || runCount > 0 && !f.Extremes {
		f.Extremes, f.Min, f.Max, f.IntMin, f.IntMax = false, 0, 0, Int128{}, Int128{}
		return
	}
	bMin, bMax := b.Min, b.Max
	if b.Kind != Float {
		bMin, bMax = b.IntMin.Float64(), b.IntMax.Float64()
	}
	first := runCount == 0
	if f.Kind == Float {
		if first || bMin < f.Min {
			f.Min = bMin
		}
		if first || bMax > f.Max {
			f.Max = bMax
		}
	} else {
		if first || b.IntMin.Cmp(f.IntMin) < 0 {
			f.IntMin = b.IntMin
		}
		if first || b.IntMax.Cmp(f.IntMax) > 0 {
			f.IntMax = b.IntMax
		}
	}
	f.Extremes = true
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
