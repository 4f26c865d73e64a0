package runner

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/split"
)

// sampleRows is how many records of a CSV file are read before the load:
// the values checked against an existing table's types (so that a file
// that cannot fit is refused before anything is sent) and, for a table
// that is neither the database's nor a use case's, its column types
// inferred for line protocol (then held: a later record that does not fit
// fails naming its line).
const sampleRows = 1000

// sampled is the first records of one CSV input.
type sampled struct {
	source string
	rows   [][][]byte // values by record and column; nil: NULL
	where  []string   // "record N (line L, byte offset O)"
}

// firstBatch is the first batch (at most sampleRows rows) of input i,
// from a second opening of it; nil for stdin, which cannot be read twice.
// release gives back what it holds.
func (r *run) firstBatch(i int) (b *load.Batch, release func(), err error) {
	path := r.in.formats[i].source
	if len(r.cfg.Inputs) == 0 || path == "stdin" {
		return nil, func() {}, nil
	}
	in, err := split.Open(path, nil, r.cfg.MaxRecordBytes)
	if err != nil {
		return nil, func() {}, err
	}
	c := r.splitConfig()
	c.BatchSize, c.Parts, c.Limit, c.DeferChecks, c.OnSkip = sampleRows, 1, sampleRows, false, nil
	sp, err := split.New(in, c)
	if err != nil {
		in.Close()
		return nil, func() {}, err
	}
	b = new(load.Batch)
	release = func() { b.Release(); sp.Release(); in.Close() }
	if _, err := sp.Next(b); err != nil && err != io.EOF {
		release()
		return nil, func() {}, err
	}
	return b, release, nil
}

// samplePGCopy refuses a pgcopy file whose first tuples do not fit the
// existing table's columns: PostgreSQL's own binary COPY carries no types,
// but a fixed-size type's values have its length.
func (r *run) samplePGCopy(i int, t *schema.Table) error {
	ct := r.own.cat.table(t.Name)
	if ct == nil || ct.Lengths == nil {
		return nil
	}
	b, release, err := r.firstBatch(i)
	defer release()
	if err != nil || b == nil {
		return err
	}
	want := make([]int, len(t.Columns))
	types := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		if j := slices.Index(ct.Table.ColumnNames(), c.Name); j >= 0 {
			want[i], types[i] = ct.Lengths[j], ct.Types[j]
		}
	}
	var fields [][]byte
	for off, rec := 0, b.FirstRecord; off < len(b.Data); rec++ {
		var size int
		fields, size, err = pgcopy.Tuple(fields[:0], b.Data[off:], 0)
		if err != nil {
			return nil // the load reports it where it is
		}
		for f, v := range fields {
			if v != nil && f < len(want) && want[f] > 0 && len(v) != want[f] {
				return fmt.Errorf("%s: record %d (byte offset %d): field %d (%s) has %d bytes, a value of table %s's column %s (%s) has %d",
					b.Source, rec, b.Offset+int64(off), f+1, t.Columns[f].Name, len(v), r.cfg.TablePrefix+t.Name, t.Columns[f].Name, types[f], want[f])
			}
		}
		off += size
	}
	return nil
}

// sample reads the first records of input i (a single-table CSV file) from
// a second opening of it; nil for stdin, which cannot be read twice. It
// checks them against the table's catalog.
func (r *run) sample(i int, t *schema.Table) (*sampled, error) {
	b, release, err := r.firstBatch(i)
	defer release()
	if err != nil || b == nil {
		return nil, err
	}
	path := b.Source
	s := &sampled{source: path}
	line := b.FirstLine
	var scratch []byte
	for off, rec := 0, int64(0); off < len(b.Data) && b.Format == format.CSV; rec++ {
		vals := make([][]byte, len(t.Columns))
		scratch = make([]byte, 0, len(b.Data)-off)
		next, n, err := csv.ParseRecord(b.Data, off, vals, &scratch)
		if err != nil {
			return nil, fmt.Errorf("%s: record %d (line %d, byte offset %d): %w", path, b.FirstRecord+rec, line, b.Offset+int64(off), err)
		}
		s.rows = append(s.rows, vals)
		s.where = append(s.where, fmt.Sprintf("record %d (line %d, byte offset %d)", b.FirstRecord+rec, line, b.Offset+int64(off)))
		off, line = next, line+int64(n)
	}
	if ct := r.own.cat.table(t.Name); ct != nil {
		epochCol := -1 // with --time-unit the time column's numbers are written as times
		if r.own.timeUnit > 0 {
			epochCol = max(slices.Index(t.ColumnNames(), r.cfg.Mapping.TimeColumn), 0)
		}
		if err := s.check(t, ct, r.cfg.TablePrefix, epochCol); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// check refuses a sampled value that the existing table's column cannot
// read: a number column's value that is not a number of its kind. Column
// epochCol (-1: none) is not checked.
func (s *sampled) check(t *schema.Table, ct *load.CatalogTable, prefix string, epochCol int) error {
	idx := map[string]int{}
	for j, c := range ct.Table.Columns {
		idx[c.Name] = j
	}
	for k, vals := range s.rows {
		for i, c := range t.Columns {
			j, ok := idx[c.Name]
			v := vals[i]
			if !ok || len(v) == 0 || i == epochCol {
				continue
			}
			if kind := valueKind(v); !valueFits(kind, ct.Table.Columns[j].Type) {
				return fmt.Errorf("%s: %s: column %s: the input has %q (%s), table %s has %s",
					s.source, s.where[k], c.Name, shorten(v), kind, prefix+t.Name, ct.Types[j])
			}
		}
	}
	return nil
}

// valueFits reports whether a CSV value of kind can be a value of a
// column of type db: numbers of their kind; for a time column anything
// but a number (the database reads many texts of a time); anything for
// the others.
func valueFits(kind, db schema.Type) bool {
	switch db {
	case schema.Float8, schema.Float4:
		return kind == schema.Int8 || kind == schema.Float8
	case schema.Int8, schema.Int4:
		return kind == schema.Int8
	case schema.Timestamp:
		return kind != schema.Int8 && kind != schema.Float8
	}
	return true
}

// valueKind is the narrowest type a CSV value's text is.
func valueKind(v []byte) schema.Type {
	if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return schema.Int8
	}
	if _, err := strconv.ParseFloat(string(v), 64); err == nil {
		return schema.Float8
	}
	if _, err := csv.ParseTime(v, 0); err == nil {
		return schema.Timestamp
	}
	return schema.Text
}

// infer is t's column types from the sample: a column whose values are
// all integers is int8, all numbers float8, all times timestamptz, else
// text; a column with no value in the sample keeps t's type. A column of
// numbers but for a few values (mostlyNumbers) is text too, and said in
// the warnings returned: naming the column, the odd values and where the
// first is (issue 43 item 12: one n/a made a SYMBOL of a temperature).
func (s *sampled) infer(t *schema.Table) (types []schema.Type, warnings []string) {
	types = make([]schema.Type, len(t.Columns))
	for i, c := range t.Columns {
		var kind schema.Type
		numbers, nOdd, odd, firstOdd := 0, 0, []string{}, -1
		for k, vals := range s.rows {
			v := vals[i]
			if len(v) == 0 {
				continue
			}
			k0 := valueKind(v)
			if k0 == schema.Int8 || k0 == schema.Float8 {
				numbers++
			} else {
				nOdd++
				if firstOdd < 0 {
					firstOdd = k
				}
				if len(odd) < 3 && !slices.Contains(odd, strconv.Quote(shorten(v))) {
					odd = append(odd, strconv.Quote(shorten(v)))
				}
			}
			k := k0
			switch {
			case kind == 0 || kind == k:
				kind = k
			case (kind == schema.Int8 && k == schema.Float8) || (kind == schema.Float8 && k == schema.Int8):
				kind = schema.Float8
			default:
				kind = schema.Text
			}
		}
		if kind == 0 {
			kind = c.Type
		}
		types[i] = kind
		if kind == schema.Text && firstOdd >= 0 && mostlyNumbers(numbers, nOdd) {
			warnings = append(warnings, fmt.Sprintf("%s: table %s: column %s is numbers in %d of its sampled values but not %s (first at %s): it is loaded as text, a string field (an empty field would be a NULL of a numeric column)",
				s.source, t.Name, c.Name, numbers, strings.Join(odd, ", "), s.where[firstOdd]))
		}
	}
	return types, warnings
}

// mostlyNumbers reports whether a column whose sampled values are numbers
// but for odd ones is a numeric column with a few odd values (n/a, -, ?):
// at least 10 numbers, and at most 3 odd values or one in 20.
func mostlyNumbers(numbers, odd int) bool {
	return numbers >= 10 && (odd <= 3 || odd*20 <= numbers)
}
