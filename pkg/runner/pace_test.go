package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/results"
)

// TestPacedRun: a paced run sends no batch before it falls due (so it lasts
// at least rows/rate), records both latencies and the pace per period, and
// still verifies.
func TestPacedRun(t *testing.T) {
	path, _ := ilpInput(t, 3000)
	f := newFake()
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers = 100, 2
	cfg.ReportingPeriod = 50 * time.Millisecond
	cfg.Pace = pace.Pace{Rate: 10000}
	var stderr strings.Builder
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Rows != 3000 || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("rows %d verify %+v", res.Rows, res.Verify)
	}
	// The last batch falls due at 3000/10000 s: the run cannot be shorter.
	if res.Seconds < 0.3 {
		t.Errorf("a run of 3000 rows at 10000 rows/s took %.3fs", res.Seconds)
	}
	pc := res.Pace
	if pc == nil || pc.Rate != 10000 || pc.OfferedRowsPerSec <= 0 || pc.OfferedRowsPerSec > 10000 || pc.LatencyFromDue.Max <= 0 {
		t.Fatalf("pace %+v", pc)
	}
	// From due includes the send: never below it.
	if pc.LatencyFromDue.Max < res.Latency.Max || pc.LatencyFromDue.P50 < res.Latency.P50 {
		t.Errorf("from due %+v below from send %+v", pc.LatencyFromDue, res.Latency)
	}
	if len(res.Periods) < 2 {
		t.Fatalf("%d periods", len(res.Periods))
	}
	for _, p := range res.Periods {
		if p.Pace == nil || p.Pace.Rate != 10000 {
			t.Fatalf("period %+v", p)
		}
	}
	for _, want := range []string{"paced: offered", "latency from due ms", "| offered "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestPacedStallCounts: a write that stalls holds up every batch due
// behind it (one worker: the connection limit). The latency from due of the
// held-up batches shows the stall; from the send it does not; the backlog
// is reported while it lasts.
func TestPacedStallCounts(t *testing.T) {
	path, _ := ilpInput(t, 4000)
	f := newFake()
	f.delayFor = func(b *load.Batch) time.Duration {
		if b.FirstRecord == 1001 {
			return 400 * time.Millisecond
		}
		return 0
	}
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers = 50, 1
	cfg.ReportingPeriod = 100 * time.Millisecond
	cfg.Pace = pace.Pace{Rate: 8000}
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	// 400 ms at 8000 rows/s: 64 batches of 50 fall due during the stall,
	// a fifth of the 80; every one of them waits.
	if d := res.Pace.LatencyFromDue; d.P90 < 100 || d.Max < 390 {
		t.Errorf("latency from due %+v does not show the stall", d)
	}
	if s := res.Latency; s.P90 >= 100 || s.Max < 390 {
		t.Errorf("latency from send %+v: want the stalled batch only", s)
	}
	if res.Pace.MaxBacklogRows < 1000 || res.Pace.MaxLagSeconds < 0.1 {
		t.Errorf("max backlog %d rows, lag %.3fs", res.Pace.MaxBacklogRows, res.Pace.MaxLagSeconds)
	}
	var peak int64
	for _, p := range res.Periods {
		peak = max(peak, p.Pace.BacklogRows)
	}
	if peak < 500 {
		t.Errorf("no period reports the backlog (peak %d rows)", peak)
	}
}

// TestStaircase: a capped staircase ends after its last step (the input is
// longer: the rows loaded are the schedule's, verified), and the steps a
// slow server cannot keep up with are judged unsustainable.
func TestStaircase(t *testing.T) {
	path, _ := ilpInput(t, 20000)
	t.Run("fast server", func(t *testing.T) {
		cfg := baseConfig(path)
		cfg.BatchSize, cfg.Workers = 100, 2
		cfg.Pace = pace.Pace{Steps: pace.Steps{Start: 2000, Step: 2000, Every: 200 * time.Millisecond, Max: 6000}, SLO: pace.SLO{Quantile: 99, Bound: 2 * time.Second}}
		var stderr strings.Builder
		cfg.Stderr = &stderr
		res, err := Run(context.Background(), cfg, newFake())
		if err != nil {
			t.Fatal(err)
		}
		// 0.2 s at 2000, 4000, 6000 rows/s: 2400 rows.
		if res.Rows != 2400 || res.RowsRead != 2400 || !res.Verify.OK {
			t.Fatalf("rows %d read %d verify %+v", res.Rows, res.RowsRead, res.Verify)
		}
		pc := res.Pace
		if len(pc.Steps) != 3 || pc.Steps[2].RowsPerSec != 6000 || !pc.Steps[2].Complete {
			t.Fatalf("steps %+v", pc.Steps)
		}
		// Every step passed up to MAX: the staircase never found the
		// server's limit, and says so (issue 43.3).
		if pc.SustainableRowsPerSec != 6000 || !pc.SustainableAtLeast || pc.EndedBy != "max" {
			t.Errorf("sustainable %v (at least %v, ended by %q), steps %+v", pc.SustainableRowsPerSec, pc.SustainableAtLeast, pc.EndedBy, pc.Steps)
		}
		if !strings.Contains(stderr.String(), "sustainable rate: at least 6,000 rows/s (") ||
			!strings.Contains(stderr.String(), "the step at MAX (6,000 rows/s) ended the staircase before a step failed") {
			t.Errorf("summary:\n%s", stderr.String())
		}
	})
	t.Run("slow server", func(t *testing.T) {
		// One worker, 50 ms a batch of 100: at most 2000 rows/s.
		f := newFake()
		f.delay = 50 * time.Millisecond
		cfg := baseConfig(path)
		cfg.BatchSize, cfg.Workers = 100, 1
		cfg.Pace = pace.Pace{Steps: pace.Steps{Start: 1000, Step: 2000, Every: 400 * time.Millisecond, Max: 5000}, SLO: pace.SLO{Quantile: 99, Bound: time.Second}}
		res, err := Run(context.Background(), cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		// The staircase stops after the first step that leaves a backlog
		// (3000 rows/s); the next may have started.
		pc := res.Pace
		if len(pc.Steps) < 2 || !pc.Halted || pc.Steps[1].Bounded || !pc.Steps[1].Complete {
			t.Fatalf("halted %v, steps %+v", pc.Halted, pc.Steps)
		}
		for _, st := range pc.Steps[1:] {
			if st.OK || st.Bounded {
				t.Errorf("step %v rows/s judged ok/bounded: %+v", st.RowsPerSec, st)
			}
		}
		if pc.SustainableRowsPerSec >= 3000 {
			t.Errorf("sustainable %v rows/s from a server that takes 2000", pc.SustainableRowsPerSec)
		}
		if !res.Verify.OK || res.Rows != res.RowsRead {
			t.Errorf("rows %d read %d verify %+v", res.Rows, res.RowsRead, res.Verify)
		}
	})
}

// TestStaircaseInputEnds: a staircase whose input ends in a step reports
// the step below as a lower bound, not as the server's limit (issue
// 43.3: "sustainable rate: 40,000" when the input ran out at 60,000).
func TestStaircaseInputEnds(t *testing.T) {
	path, _ := ilpInput(t, 3000)
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers = 100, 2
	// 2,000 rows in the first step's second, 4,000 due in the second's:
	// the input's last 1,000 are due in its first quarter, so the input
	// ends in it even on a machine that lags three quarters of a second
	// (at 200 ms steps a busy CI machine lagged past the step's end).
	cfg.Pace = pace.Pace{Steps: pace.Steps{Start: 2000, Step: 2000, Every: time.Second}, SLO: pace.SLO{Quantile: 99, Bound: 2 * time.Second}}
	var stderr strings.Builder
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, newFake())
	if err != nil {
		t.Fatal(err)
	}
	pc := res.Pace
	if res.Rows != 3000 || len(pc.Steps) != 2 || pc.Steps[1].Complete || pc.EndedBy != "input" {
		t.Fatalf("rows %d, ended by %q, steps %+v", res.Rows, pc.EndedBy, pc.Steps)
	}
	if pc.SustainableRowsPerSec != 2000 || !pc.SustainableAtLeast {
		t.Fatalf("sustainable %v, at least %v", pc.SustainableRowsPerSec, pc.SustainableAtLeast)
	}
	if want := "sustainable rate: at least 2,000 rows/s (the highest step that kept p99 from due < 2000 ms and a bounded backlog; the input ended before a step failed"; !strings.Contains(stderr.String(), want) {
		t.Errorf("no %q in:\n%s", want, stderr.String())
	}

	// Input for less than the first step: nothing was measured.
	path, _ = ilpInput(t, 200)
	cfg.Inputs = []string{path}
	stderr.Reset()
	if res, err = Run(context.Background(), cfg, newFake()); err != nil {
		t.Fatal(err)
	}
	if res.Pace.SustainableRowsPerSec != 0 || !strings.Contains(stderr.String(), "sustainable rate: not measured (the input ended during the first step") {
		t.Errorf("sustainable %v:\n%s", res.Pace.SustainableRowsPerSec, stderr.String())
	}
}

// TestRateSLO: a constant rate with an SLO is judged, in the summary and
// the results (issue 43.3: --slo with --rate never said).
func TestRateSLO(t *testing.T) {
	path, _ := ilpInput(t, 1000)
	for _, tc := range []struct {
		delay time.Duration
		bound time.Duration
		met   bool
		says  string
	}{
		{0, 10 * time.Second, true, "SLO p99 from due < 10000 ms: met (p99 from due "},
		{20 * time.Millisecond, time.Millisecond, false, "SLO p99 from due < 1 ms: NOT met (p99 from due "},
	} {
		f := newFake()
		f.delay = tc.delay
		cfg := baseConfig(path)
		cfg.BatchSize, cfg.Workers = 100, 2
		cfg.Pace = pace.Pace{Rate: 10000, SLO: pace.SLO{Quantile: 99, Bound: tc.bound}}
		var stderr strings.Builder
		cfg.Stderr = &stderr
		res, err := Run(context.Background(), cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		pc := res.Pace
		if pc.SLOMet == nil || *pc.SLOMet != tc.met || pc.SLOQuantileMillis <= 0 || (tc.delay > 0 && pc.SLOQuantileMillis < ms(tc.delay)) {
			t.Errorf("SLO met %v, p99 %v ms", pc.SLOMet, pc.SLOQuantileMillis)
		}
		if !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("no %q in:\n%s", tc.says, stderr.String())
		}
	}
}

// TestPacedComposes: pacing with hash workers, a limit, retries and an
// interrupt while the reader waits for a due time.
func TestPacedComposes(t *testing.T) {
	path, perTable := ilpInput(t, 3000)
	t.Run("hash workers, limit, retries", func(t *testing.T) {
		f := newFake()
		f.fail = func(b *load.Batch, attempt int) (load.Ack, error) {
			if b.Seq == 3 && attempt == 1 {
				return load.Ack{}, load.Retryable(errors.New("503 busy"))
			}
			return load.Ack{Rows: b.Rows}, nil
		}
		cfg := baseConfig(path)
		cfg.BatchSize, cfg.Workers, cfg.HashWorkers, cfg.Limit = 100, 3, true, 2000
		cfg.Pace = pace.Pace{Rate: 20000}
		res, err := Run(context.Background(), cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != 2000 || !res.Verify.OK || res.Retries != 1 || f.orderErr != nil {
			t.Fatalf("rows %d verify %+v retries %d order %v", res.Rows, res.Verify, res.Retries, f.orderErr)
		}
		// The retried batch waited a back-off after its due time: from due
		// it took at least that, from the send (its second attempt) not.
		if res.Pace.LatencyFromDue.Max < ms(backoffMin) {
			t.Errorf("from due %+v: the retry's back-off is missing", res.Pace.LatencyFromDue)
		}
	})
	t.Run("interrupted while waiting for a due time", func(t *testing.T) {
		cfg := baseConfig(path)
		cfg.BatchSize, cfg.Workers = 100, 2
		cfg.Pace = pace.Pace{Rate: 1000} // 3 s of input
		ctx, cancel := context.WithTimeout(context.Background(), 350*time.Millisecond)
		defer cancel()
		f := newFake()
		res, err := Run(ctx, cfg, f)
		if !errors.Is(err, errInterrupted) || res.Status != results.StatusInterrupted {
			t.Fatalf("err %v status %s", err, res.Status)
		}
		var held int64
		for _, n := range f.rows {
			held += n
		}
		if res.Rows != held || res.Rows == 0 || res.Rows >= 3000 {
			t.Fatalf("rows %d, the fake holds %d of %v", res.Rows, held, perTable)
		}
		// The schedule ran for the whole 350 ms: about 350 rows were due.
		if pc := res.Pace; pc == nil || pc.OfferedRowsPerSec < 900 || pc.OfferedRowsPerSec > 1001 {
			t.Errorf("pace %+v", pc)
		}
	})
}

// TestPacedProgressBar: on a terminal, a paced run's bar says how far
// behind the schedule it is.
func TestPacedProgressBar(t *testing.T) {
	var out strings.Builder
	st := &workerStats{tables: map[string]int64{}, hist: newHistogram()}
	r := &run{cfg: Config{Stderr: &out, BatchSize: 1000, Workers: 1, Pace: pace.Pace{Rate: 1000}}, in: inputs{totalSize: -1}, workers: []*workerStats{st}}
	r.start = time.Unix(100, 0)
	r.pace = pace.New(r.cfg.Pace, r.start, r.cfg.BatchSize, r.cfg.Workers)
	// Nothing sent after 10 s at 1000 rows/s: ten batches due, the
	// oldest since 1 s.
	r.drawBar(time.Unix(110, 0))
	if want := ", backlog 10,000 rows (lag 9s)"; !strings.HasSuffix(out.String(), want) {
		t.Fatalf("bar %q, want it to end in %q", out.String(), want)
	}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
