// Package latency records latencies in a histogram (HdrHistogram, in
// microseconds from 1 µs to 1 h) and summarises them as the results file
// does (results.LatencySummary). The load engine and each of its concerns
// (pacing, queries) keep their own histograms, one per worker, merged on a
// tick: this package is what they share.
package latency

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tsload/tsload/pkg/results"
)

// Histogram records latencies; it is not safe for concurrent use.
type Histogram struct{ h *hdrhistogram.Histogram }

// New returns a histogram of three significant digits.
func New() *Histogram { return NewDigits(3) }

// NewDigits returns a histogram of digits significant digits: fewer take
// less memory (two: about 1%, for many small histograms).
func NewDigits(digits int) *Histogram {
	return &Histogram{hdrhistogram.New(1, int64(time.Hour/time.Microsecond), digits)}
}

// Record adds d (at least 1 µs; above an hour counts as an hour).
func (h *Histogram) Record(d time.Duration) {
	us := max(int64(d/time.Microsecond), 1)
	if err := h.h.RecordValue(us); err != nil {
		h.h.RecordValue(h.h.HighestTrackableValue())
	}
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) { h.h.Merge(o.h) }

// Reset empties h.
func (h *Histogram) Reset() { h.h.Reset() }

// Count is how many latencies h holds.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// QuantileMillis is the latency at quantile q (a percentage: 99.9) in
// milliseconds.
func (h *Histogram) QuantileMillis(q float64) float64 {
	return float64(h.h.ValueAtQuantile(q)) / 1000
}

// Summary is h as the results file records it (zero when h is empty).
func (h *Histogram) Summary() results.LatencySummary {
	if h.h.TotalCount() == 0 {
		return results.LatencySummary{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return results.LatencySummary{
		Mean: h.h.Mean() / 1000,
		P50:  ms(h.h.ValueAtQuantile(50)),
		P90:  ms(h.h.ValueAtQuantile(90)),
		P99:  ms(h.h.ValueAtQuantile(99)),
		Max:  ms(h.h.Max()),
	}
}
