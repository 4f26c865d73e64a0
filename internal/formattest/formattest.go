// Package formattest holds the checks that the format packages' fuzzers
// (pkg/format/ilp, csv, pgcopy) share. It is apart from pkg/format so that
// no library imports package testing.
package formattest

import (
	"bytes"
	"testing"

	"github.com/tsload/tsload/pkg/format"
)

// Shifter is one format's TimeRange and AppendShifted over a batch's bytes
// (the time column bound).
type Shifter struct {
	Range func(data []byte) (lo, hi int64, ok bool, err error)
	Shift func(dst, data []byte, delta int64) ([]byte, error)
	// Fits says whether times lo..hi moved by delta stay in what the format
	// can write; nil: in int64.
	Fits func(lo, hi, delta int64) bool
	// Spans calls fn with the start and end offsets of every time field of
	// b: outside them a shift must change nothing.
	Spans func(b []byte, fn func(start, end int))
}

// RoundTrip shifts data by delta when its times are readable and fit: the
// shifted range must be the range moved by delta, and shifting back must
// give data again, and outside the time fields (Spans) the bytes must be
// the same. It returns the shifted bytes, nil when data was passed over.
func (s Shifter) RoundTrip(t *testing.T, data []byte, delta int64) []byte {
	t.Helper()
	lo, hi, ok, err := s.Range(data)
	if err != nil || !ok {
		return nil
	}
	if s.Fits != nil && !s.Fits(lo, hi, delta) {
		return nil
	}
	_, okLo := format.Shift(lo, delta)
	_, okHi := format.Shift(hi, delta)
	if !okLo || !okHi {
		return nil
	}
	shifted, err := s.Shift(nil, data, delta)
	if err != nil {
		t.Fatalf("shift of a readable range: %v", err)
	}
	lo2, hi2, _, err := s.Range(shifted)
	if err != nil || lo2 != lo+delta || hi2 != hi+delta {
		t.Fatalf("shifted range %d..%d %v, want %d..%d", lo2, hi2, err, lo+delta, hi+delta)
	}
	back, err := s.Shift(nil, shifted, -delta)
	if err != nil || !bytes.Equal(back, data) {
		t.Fatalf("shift back: %q %v, want %q", back, err, data)
	}
	sameOutside(t, data, shifted, s.Spans)
	return shifted
}

// sameOutside fails t unless before and after hold the same bytes outside
// their time fields, which spans calls fn with (start and end offsets; a
// text format's time may change its length when shifted).
func sameOutside(t *testing.T, before, after []byte, spans func(b []byte, fn func(start, end int))) {
	t.Helper()
	strip := func(b []byte) []byte {
		var out []byte
		last := 0
		spans(b, func(start, end int) {
			out = append(append(out, b[last:start]...), '#')
			last = end
		})
		return append(out, b[last:]...)
	}
	if !bytes.Equal(strip(before), strip(after)) {
		t.Fatalf("shift changed more than the times: %q -> %q", before, after)
	}
}

// Bench measures Shift by delta over a batch of 1,000 rows, row(i) the
// i-th (with its line end): a later loop pass's cost per batch.
func (s Shifter) Bench(b *testing.B, row func(i int) []byte, delta int64) {
	var data []byte
	for i := 0; i < 1000; i++ {
		data = append(data, row(i)...)
	}
	var dst []byte
	var err error
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = s.Shift(dst[:0], data, delta); err != nil {
			b.Fatal(err)
		}
	}
}
