package runner

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/results"
)

// TestAutoPeriods: a load of about a second, with the default 10 s
// reporting period, is recorded in many short periods rather than one
// (issue 43.16), which add up to the run; the progress lines keep their
// own period.
func TestAutoPeriods(t *testing.T) {
	path, _ := ilpInput(t, 20000)
	f := newFake()
	f.delay = 5 * time.Millisecond // 200 batches on one worker: a second or more
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers = 100, 1
	cfg.ReportingPeriod, cfg.AutoPeriods = DefaultReportingPeriod, true
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if !res.PeriodsAuto || len(res.Periods) < 8 || len(res.Periods) > maxPeriods {
		t.Fatalf("auto %v, %d periods of %v s over %.3f s", res.PeriodsAuto, len(res.Periods), res.PeriodSeconds, res.Seconds)
	}
	var rows int64
	var secs float64
	for _, p := range res.Periods {
		rows += p.Rows
		secs += p.Seconds
	}
	if rows != res.Rows || secs < res.Seconds*0.99 || res.Periods[len(res.Periods)-1].TotalRows != res.Rows {
		t.Errorf("periods add up to %d rows in %.3f s; the run %d rows in %.3f s", rows, secs, res.Rows, res.Seconds)
	}

	// Given (or paced), the period is the reporting period.
	cfg.AutoPeriods = false
	cfg.ReportingPeriod = time.Hour
	if res, err = Run(context.Background(), cfg, newFake()); err != nil || res.PeriodsAuto || res.PeriodSeconds != 3600 || len(res.Periods) != 1 {
		t.Fatalf("err %v, auto %v, period %v s, %d periods", err, res.PeriodsAuto, res.PeriodSeconds, len(res.Periods))
	}
}

// TestCoarsen: at maxPeriods the periods merge in pairs, exactly for what
// they count; the period doubles.
func TestCoarsen(t *testing.T) {
	r := &run{res: &results.Results{}}
	var total int64
	for i := range maxPeriods {
		total += int64(i)
		r.res.Periods = append(r.res.Periods, results.Period{At: float64(i+1) / 10, Seconds: 0.1, Rows: int64(i), Metrics: 2 * int64(i), Batches: 1, TotalRows: total,
			Server: &results.PeriodServer{CPUSeconds: 0.5, RSSBytes: int64(i), WriteBytes: 10}})
	}
	if got := r.coarsen(time.Second); got != 2*time.Second || len(r.res.Periods) != maxPeriods/2 {
		t.Fatalf("period %v, %d periods", got, len(r.res.Periods))
	}
	p := r.res.Periods[1] // periods 2 and 3
	if p.Rows != 5 || p.Metrics != 10 || p.Batches != 2 || p.Seconds < 0.2-1e-9 || p.Seconds > 0.2+1e-9 || p.At != 0.4 || p.TotalRows != 6 || p.RowsPerSec < 24.99 || p.RowsPerSec > 25.01 {
		t.Errorf("merged %+v", p)
	}
	if s := p.Server; s.CPUSeconds != 1 || s.RSSBytes != 3 || s.WriteBytes != 20 {
		t.Errorf("server %+v", s)
	}
	if r.coarsen(2*time.Second) != 2*time.Second {
		t.Error("coarsened below maxPeriods")
	}

	// 2*minPeriods periods: merged when they hold too few batches to show
	// a rate (1 each), kept when they hold enough.
	for _, batches := range []int64{1, minBatches} {
		r.res.Periods = r.res.Periods[:0]
		for i := range 2 * minPeriods {
			r.res.Periods = append(r.res.Periods, results.Period{At: float64(i + 1), Seconds: 1, Batches: batches})
		}
		merged := r.coarsen(time.Second) == 2*time.Second
		if merged != (batches == 1) || merged != (len(r.res.Periods) == minPeriods) {
			t.Errorf("%d batches a period: merged %v, %d periods", batches, merged, len(r.res.Periods))
		}
	}
	// An odd count is not merged (it would leave one period unpaired).
	r.res.Periods = append(r.res.Periods, results.Period{})
	if n := len(r.res.Periods); r.coarsen(time.Second) != time.Second || len(r.res.Periods) != n {
		t.Error("an odd count merged")
	}
}
