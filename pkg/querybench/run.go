package querybench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/results"
)

// Tolerance is the relative difference allowed between an answer's value
// and the evaluator's (a mean summed in another order differs in its last
// bits).
const Tolerance = 1e-9

// MaxReported bounds the wrong answers and errors named in the results.
const MaxReported = 10

// Config is one run of a query set.
type Config struct {
	Set *Set
	// File is the set's path, for the results.
	File string
	// NewQuerier opens query connection n of Workers (load.Hooks.NewQuerier).
	NewQuerier func(ctx context.Context, n int) (load.Querier, error)
	// Workers are the query connections, each answering one query at a
	// time (at least 1).
	Workers int
	// Rate, when above 0, paces the queries at this many per second over
	// all workers; a query's latency then runs from its due time, so one
	// that waited for a free worker counts its wait. 0: each worker sends
	// its next query when the last is answered.
	Rate float64
	// Warmup are the set's first queries, run (and checked) before the
	// measured part and not counted in its figures.
	Warmup int
	// Expected are the reference answers, one per query of the set
	// (Expect); nil: the answers are not checked, and Note says why.
	Expected []*query.Answer
	Input    string
	Note     string
	// Log receives one line per query type at the end (nil: none).
	Log io.Writer
}

// ErrWrong is wrapped by Run's error when an answer differed from the
// evaluator's.
var ErrWrong = errors.New("wrong answer")

// Run runs cfg.Set against the database and returns its figures. The
// error is not nil when an answer was wrong or a query failed (the
// figures are then complete all the same); a type the target declares
// unsupported (errors.ErrUnsupported) is counted apart and fails nothing.
func Run(ctx context.Context, cfg Config) (*results.QueryBench, error) {
	set := cfg.Set
	switch {
	case set == nil || len(set.Queries) == 0:
		return nil, errors.New("no query to run")
	case cfg.Workers < 1:
		return nil, fmt.Errorf("%d query workers: want at least 1", cfg.Workers)
	case cfg.Rate < 0:
		return nil, fmt.Errorf("query rate %g: want 0 (unpaced) or more", cfg.Rate)
	case cfg.Warmup < 0 || cfg.Warmup >= len(set.Queries):
		return nil, fmt.Errorf("warm-up of %d queries: the set has %d, want fewer", cfg.Warmup, len(set.Queries))
	case cfg.Expected != nil && len(cfg.Expected) != len(set.Queries):
		return nil, fmt.Errorf("%d expected answers for %d queries", len(cfg.Expected), len(set.Queries))
	}
	var types []string
	for _, q := range set.Queries {
		if !slices.Contains(types, q.Name) {
			types = append(types, q.Name)
		}
	}
	res := &results.QueryBench{File: cfg.File, UseCase: set.Header.UseCase, Seed: set.Header.Seed, Scale: set.Header.Scale,
		Workers: cfg.Workers, Rate: cfg.Rate, Warmup: cfg.Warmup, Checked: cfg.Expected != nil, Input: cfg.Input, Note: cfg.Note}
	if cfg.Expected == nil && res.Note == "" {
		res.Note = "--check=false: no answer was checked"
	}
	queriers := make([]load.Querier, cfg.Workers)
	defer func() {
		for _, q := range queriers {
			if q != nil {
				q.Close()
			}
		}
	}()
	for i := range queriers {
		q, err := cfg.NewQuerier(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("query connection %d: %w", i, err)
		}
		queriers[i] = q
	}
	run := &benchRun{cfg: &cfg, types: types}
	if cfg.Warmup > 0 {
		if _, err := run.phase(ctx, queriers, 0, cfg.Warmup, nil); err != nil {
			return nil, err
		}
	}
	tallies := make([]*tally, cfg.Workers)
	for i := range tallies {
		tallies[i] = newTally(len(types))
	}
	secs, err := run.phase(ctx, queriers, cfg.Warmup, len(set.Queries), tallies)
	if err != nil {
		return nil, err
	}
	total := newTally(len(types))
	for _, t := range tallies {
		total.merge(t)
	}
	all := newHist()
	for i, name := range types {
		qt := total.types[i]
		qt.Name = name
		qt.Latency = summary(total.hists[i])
		all.Merge(total.hists[i])
		res.Types = append(res.Types, *qt)
		res.All.Count += qt.Count
		res.All.Errors += qt.Errors
		res.All.Unsupported += qt.Unsupported
		res.All.Checked += qt.Checked
		res.All.Wrong += qt.Wrong
		res.All.Rows += qt.Rows
	}
	res.All.Name, res.All.Latency = "all", summary(all)
	res.Seconds = secs
	if secs > 0 {
		res.QueriesPerSecond = float64(res.All.Count) / secs
	}
	res.Wrong, res.Errors = run.wrong, run.errs
	if cfg.Log != nil {
		Print(cfg.Log, res)
	}
	switch {
	case run.nWrong > 0:
		return res, fmt.Errorf("%d of %d answers wrong, the first: %s: %w", run.nWrong, len(set.Queries), run.wrong[0], ErrWrong)
	case run.nErr > 0:
		return res, fmt.Errorf("%d of %d queries failed, the first: %s", run.nErr, len(set.Queries), run.errs[0])
	}
	return res, nil
}

// benchRun is what the workers share: the first problems found.
type benchRun struct {
	cfg    *Config
	types  []string
	mu     sync.Mutex
	wrong  []string
	errs   []string
	nWrong int
	nErr   int
}

// tally is one worker's figures per type.
type tally struct {
	types []*results.QueryBenchType
	hists []*hdrhistogram.Histogram
}

func newTally(n int) *tally {
	t := &tally{}
	for range n {
		t.types = append(t.types, &results.QueryBenchType{})
		t.hists = append(t.hists, newHist())
	}
	return t
}

func (t *tally) merge(o *tally) {
	for i, x := range o.types {
		y := t.types[i]
		y.Count += x.Count
		y.Errors += x.Errors
		y.Unsupported += x.Unsupported
		y.Checked += x.Checked
		y.Wrong += x.Wrong
		y.Rows += x.Rows
		t.hists[i].Merge(o.hists[i])
	}
}

// newHist records latencies in microseconds, 1 µs to 1 h, 3 digits.
func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
}

func summary(h *hdrhistogram.Histogram) results.LatencySummary {
	if h.TotalCount() == 0 {
		return results.LatencySummary{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return results.LatencySummary{Mean: h.Mean() / 1000, P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max())}
}

// phase runs queries [from, to) of the set over the queriers and records
// them into tallies (nil: the warm-up, not recorded); it returns the
// phase's wall time in seconds.
func (r *benchRun) phase(ctx context.Context, queriers []load.Querier, from, to int, tallies []*tally) (float64, error) {
	type job struct {
		i   int
		due time.Time
	}
	jobs := make(chan job)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w, qr := range queriers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var t *tally
				if tallies != nil {
					t = tallies[w]
				}
				r.one(ctx, qr, j.i, j.due, t)
			}
		}()
	}
	began := time.Now()
	var err error
feed:
	for i := from; i < to; i++ {
		due := time.Time{}
		if r.cfg.Rate > 0 {
			due = began.Add(time.Duration(float64(i-from) / r.cfg.Rate * float64(time.Second)))
			if d := time.Until(due); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
					err = ctx.Err()
					break feed
				}
			}
		}
		select {
		case jobs <- job{i, due}:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	return time.Since(began).Seconds(), err
}

// one runs query i on qr, checks its answer and records it into t (nil:
// not recorded).
func (r *benchRun) one(ctx context.Context, qr load.Querier, i int, due time.Time, t *tally) {
	q := r.cfg.Set.Queries[i]
	ti := slices.Index(r.types, q.Name)
	start := time.Now()
	if due.IsZero() {
		due = start
	}
	ans, err := qr.Query(ctx, q)
	lat := time.Since(due)
	var qt *results.QueryBenchType
	if t != nil {
		qt = t.types[ti]
	}
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		if qt != nil {
			qt.Unsupported++
		}
		return
	case err != nil:
		if qt != nil {
			qt.Errors++
		}
		r.note(&r.errs, &r.nErr, fmt.Sprintf("query %d (%s): %v", i+1, q, err))
		return
	}
	if qt != nil {
		qt.Count++
		qt.Rows += int64(len(ans.Rows))
		us := max(int64(lat/time.Microsecond), 1)
		if t.hists[ti].RecordValue(us) != nil {
			t.hists[ti].RecordValue(t.hists[ti].HighestTrackableValue())
		}
	}
	if r.cfg.Expected == nil {
		return
	}
	ans.Sort()
	d := query.Diff(r.cfg.Expected[i], ans, Tolerance)
	if qt != nil {
		qt.Checked++
		if d != "" {
			qt.Wrong++
		}
	}
	if d != "" {
		r.note(&r.wrong, &r.nWrong, fmt.Sprintf("query %d (%s): %s", i+1, q, d))
	}
}

func (r *benchRun) note(list *[]string, n *int, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*n++
	if len(*list) < MaxReported {
		*list = append(*list, s)
	}
}

// Print writes res as a table: one line per query type, then the total.
func Print(w io.Writer, res *results.QueryBench) {
	checked := "checked"
	if !res.Checked {
		checked = "NOT checked (" + res.Note + ")"
	}
	fmt.Fprintf(w, "queries: %d answered in %.2fs (%.1f/s), %d workers, answers %s\n", res.All.Count, res.Seconds,
		res.QueriesPerSecond, res.Workers, checked)
	fmt.Fprintf(w, "%-36s %7s %6s %6s %10s %10s %10s %10s %10s\n", "type", "count", "errors", "wrong", "p50 ms", "p90 ms", "p99 ms", "max ms", "rows")
	for _, t := range append(slices.Clone(res.Types), res.All) {
		if t.Unsupported > 0 && t.Count == 0 {
			fmt.Fprintf(w, "%-36s unsupported by this database (%d queries not run)\n", t.Name, t.Unsupported)
			continue
		}
		fmt.Fprintf(w, "%-36s %7d %6d %6d %10.2f %10.2f %10.2f %10.2f %10d\n", t.Name, t.Count, t.Errors, t.Wrong,
			t.Latency.P50, t.Latency.P90, t.Latency.P99, t.Latency.Max, t.Rows)
	}
	for _, s := range res.Wrong {
		fmt.Fprintf(w, "wrong: %s\n", strings.TrimSpace(s))
	}
	for _, s := range res.Errors {
		fmt.Fprintf(w, "error: %s\n", strings.TrimSpace(s))
	}
}
