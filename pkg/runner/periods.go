package runner

import (
	"time"

	"github.com/tsload/tsload/pkg/results"
)

// The results' periods of a run with AutoPeriods: a load of any length is
// charted by 20 to 64 periods. They start at firstPeriod; once maxPeriods
// are recorded (or 2*minPeriods with fewer than minBatches batches each
// on average), neighbours are merged in pairs and the period doubles. A
// 1 s load has 20 periods of 50 ms, a 10 min load 47 of 12.8 s, instead of
// one point or a fixed 10 s. Merging is exact for what a period counts
// (rows, metrics, batches, seconds, the server's CPU and I/O); what it
// samples at its end (total rows, the pass, the server's RSS) is the later
// period's. A paced run is not merged: its latency percentiles per
// period cannot be.
const (
	firstPeriod = 50 * time.Millisecond
	maxPeriods  = 64
	minPeriods  = 20 // merged only down to this many for want of batches
	minBatches  = 4  // batches a period should hold on average
)

// recordEvery is the length of the recorded periods at the start, and
// whether they adapt to the load's length.
func (r *run) recordEvery() (time.Duration, bool) {
	if r.cfg.AutoPeriods && r.pace == nil && r.cfg.ReportingPeriod > firstPeriod {
		return firstPeriod, true
	}
	return r.cfg.ReportingPeriod, false
}

// coarsen merges the recorded periods in pairs once there are maxPeriods
// of them, or 2*minPeriods holding fewer than minBatches acknowledged
// batches each on average (a period shorter than a few batches' answers
// draws their arrival, not a rate: 0, 1 or 2 batches a period), and
// returns the period to record at from now on.
func (r *run) coarsen(every time.Duration) time.Duration {
	ps := r.res.Periods
	n := len(ps)
	if n%2 != 0 || n < 2*minPeriods {
		return every // merged in pairs: all of them
	}
	var batches int64
	for _, p := range ps {
		batches += p.Batches
	}
	if n < maxPeriods && batches >= int64(minBatches*n) {
		return every
	}
	out := ps[:0]
	for i := 0; i+1 < n; i += 2 {
		out = append(out, mergePeriods(ps[i], ps[i+1]))
	}
	r.res.Periods = out
	return 2 * every
}

// mergePeriods is a and the period b after it as one.
func mergePeriods(a, b results.Period) results.Period {
	m := b
	m.Seconds = a.Seconds + b.Seconds
	m.Rows, m.Metrics, m.Batches = a.Rows+b.Rows, a.Metrics+b.Metrics, a.Batches+b.Batches
	if m.Seconds > 0 {
		m.RowsPerSec, m.MetricsPerSec = float64(m.Rows)/m.Seconds, float64(m.Metrics)/m.Seconds
	}
	if a.Server != nil && b.Server != nil {
		s := *b.Server
		s.CPUSeconds += a.Server.CPUSeconds
		s.ReadBytes += a.Server.ReadBytes
		s.WriteBytes += a.Server.WriteBytes
		m.Server = &s
	}
	return m
}
