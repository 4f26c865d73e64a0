package fingerprint

import "sort"

// Combine is the expectation after appending run to a table that held
// before (what the database answered before the load): "before + this run
// = after". Rows, non-NULL counts and sums add; the time range is the
// union of the two; series cannot be added, since the run's series may be
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
	f.Count += b.Count
	switch {
	case b.Kind == Float && f.Kind != Float:
		// Stored as floats before: the expectation becomes a float sum.
		f.Sum, f.Kind = f.IntSum.Float64(), Float
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
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
