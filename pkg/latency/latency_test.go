package latency

import (
	"fmt"
	"testing"
	"time"
)

func ExampleHistogram() {
	h := New()
	for i := 1; i <= 100; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	s := h.Summary()
	fmt.Printf("n %d mean %.1f p50 %.1f p99 %.1f max %.1f\n", h.Count(), s.Mean, s.P50, s.P99, s.Max)
	// Output: n 100 mean 50.5 p50 50.0 p99 99.0 max 100.0
}

// TestBounds: below a microsecond counts as one, above an hour as an
// hour; an empty histogram summarises to zeros; Merge and Reset.
func TestBounds(t *testing.T) {
	h := New()
	if s := h.Summary(); s.Max != 0 || s.Mean != 0 {
		t.Fatalf("empty: %+v", s)
	}
	h.Record(0)
	h.Record(2 * time.Hour)
	if h.Count() != 2 || h.QuantileMillis(0) != 0.001 || h.Summary().Max < 3.59e6 || h.Summary().Max > 3.61e6 {
		t.Fatalf("count %d, min %v ms, summary %+v", h.Count(), h.QuantileMillis(0), h.Summary())
	}
	o := NewDigits(2)
	o.Record(time.Millisecond)
	h.Merge(o)
	if h.Count() != 3 {
		t.Fatalf("merged count %d", h.Count())
	}
	h.Reset()
	if h.Count() != 0 {
		t.Fatalf("reset count %d", h.Count())
	}
}

func BenchmarkRecord(b *testing.B) {
	h := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Record(time.Duration(i%100000) * time.Microsecond)
	}
}
