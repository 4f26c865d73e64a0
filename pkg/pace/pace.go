// Package pace makes a load open-loop: batches fall due on a schedule of
// rows per second (a constant rate or a staircase of rates), whatever the
// server's answers. A Pacer gives each batch its due time on the reader,
// records each acknowledgement's latency from due on the workers, samples
// the backlog, judges the staircase's steps and fills results.Pace. It
// knows batches by their row counts and due times only: the engine keeps
// a batch's due time with the batch.
package pace

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/latency"
	"github.com/tsload/tsload/pkg/results"
)

// Open-loop pacing. The reader gives every batch a due time
// from the schedule (when its last row falls due: the rows of every batch
// cut so far, at the rate in force) and hands it to the workers at that
// time, asleep on one reused timer in between: no busy loop, no allocation
// per batch. The due time never moves: when the workers (the connection
// limit) are all busy or the server is slow, batches wait, their wait
// counts in their latency from due, and the backlog grows.
//
// Backlog and lag are sampled, not kept per batch:
//   - released: rows the reader handed out (at or after their due time);
//   - sent: rows a worker took to write;
//   - due: released, plus the whole batches (BatchSize rows) the schedule
//     made due that the reader has not cut yet (it is held up by the
//     bounded free-list when the workers lag);
//   - backlog = due - sent; lag = how long ago the oldest batch of the
//     backlog fell due (0 when there is none).
//
// A batch released less than handOver ago is on its way to a free worker
// (microseconds), not waiting for one: while the oldest due batch is that
// young, the backlog is 0.
const handOver = time.Millisecond

// Pacer is the pace of one run; a nil *Pacer is the closed loop (every
// method does nothing).
type Pacer struct {
	cfg   Pace
	sched schedule
	start time.Time
	batch int64 // BatchSize
	nw    int64 // workers

	// Reader only.
	timer *time.Timer
	cut   int64 // rows of the batches cut
	ended bool  // a capped staircase is over: stop reading

	released  atomic.Int64
	sent      atomic.Int64
	inputDone atomic.Bool
	// halt ends a staircase at a step whose backlog was not bounded: the
	// steps above could not pass with that backlog carried into them.
	halt atomic.Bool

	workers []*paceStats // by worker; fixed after newPacer

	stepMu    sync.Mutex
	stepHists []*latency.Histogram // from due, by the step the batch was due in
	stepEnds  []stepEnd            // samples at each step's end
	samples   []int64              // the current step's backlog samples (stepSamples)
	lastRows  float64              // schedule rows at the previous period's end (reporter only)

	maxBacklog atomic.Int64
	maxLag     atomic.Int64 // ns
}

// paceStats are one worker's latencies from due, and its period
// histograms, merged by the reporter.
type paceStats struct {
	mu                 sync.Mutex
	due                *latency.Histogram // the run
	periodSend, period *latency.Histogram // the reporting period: from send, from due
}

// stepEnd is the state at a step's end.
type stepEnd struct {
	at      time.Duration
	backlog int64
	lag     time.Duration
	acked   int64 // rows acknowledged so far
	bounded bool  // see stepSample
}

// New returns the pacer of a run that started at start, of batches of
// batchSize rows written by workers workers; nil when cfg does not pace.
func New(cfg Pace, start time.Time, batchSize, workers int) *Pacer {
	if !cfg.On() {
		return nil
	}
	p := &Pacer{
		cfg:     cfg,
		sched:   newSchedule(cfg),
		start:   start,
		batch:   int64(batchSize),
		nw:      int64(workers),
		timer:   time.NewTimer(time.Hour),
		workers: make([]*paceStats, workers),
	}
	p.timer.Stop()
	for i := range p.workers {
		p.workers[i] = &paceStats{due: latency.New(), periodSend: latency.New(), period: latency.New()}
	}
	return p
}

// Wait returns the due time of the next batch, of rows rows, at that time
// (at once when it has passed). stop is true, and the batch is not to be
// sent, when a capped staircase ended before it fell due.
func (p *Pacer) Wait(ctx context.Context, rows int) (due time.Time, stop bool, err error) {
	if p == nil {
		return time.Time{}, false, nil
	}
	if p.ended || p.halt.Load() {
		p.ended = true
		return time.Time{}, true, nil
	}
	p.cut += int64(rows)
	at := p.sched.at(float64(p.cut))
	if e := p.sched.end(); e > 0 && at > e+time.Microsecond { // (rounding at the last row)
		p.ended = true
		return time.Time{}, true, nil
	}
	due = p.start.Add(at)
	if d := time.Until(due); d > 0 {
		p.timer.Reset(d)
		select {
		case <-p.timer.C:
		case <-ctx.Done():
			p.timer.Stop()
			return due, false, ctx.Err()
		}
	}
	p.released.Add(int64(rows))
	return due, false, nil
}

// Over reports whether a capped staircase ended (the reader stops).
func (p *Pacer) Over() bool { return p != nil && p.ended }

// ReadDone marks the input as read: no rows are due beyond it.
func (p *Pacer) ReadDone() {
	if p != nil {
		p.inputDone.Store(true)
	}
}

// Taken counts a batch of rows rows as sent: a worker took it.
func (p *Pacer) Taken(rows int) {
	if p != nil {
		p.sent.Add(int64(rows))
	}
}

// Acked records the latency from due of a batch that fell due at due,
// acknowledged now after a send that took sendLat, in worker's histograms
// and its step's.
func (p *Pacer) Acked(worker int, due time.Time, sendLat time.Duration) {
	if p == nil || due.IsZero() {
		return
	}
	lat := time.Since(due)
	ps := p.workers[worker]
	ps.mu.Lock()
	ps.due.Record(lat)
	ps.period.Record(lat)
	ps.periodSend.Record(sendLat)
	ps.mu.Unlock()
	if p.sched.stepped() {
		k := p.sched.stepAt(due.Sub(p.start) - 1) // due at a step's end: its last batch
		p.stepMu.Lock()
		for len(p.stepHists) <= k {
			// Two significant digits (1%) for a step's quantile: a
			// staircase without MAX may have many steps, and a
			// three-digit histogram is ~180 KiB.
			p.stepHists = append(p.stepHists, latency.NewDigits(2))
		}
		p.stepHists[k].Record(lat)
		p.stepMu.Unlock()
	}
}

// Backlog returns the rows due and not sent at now, and the lag.
func (p *Pacer) Backlog(now time.Time) (int64, time.Duration) {
	sent := p.sent.Load()
	due := p.released.Load()
	el := now.Sub(p.start)
	if !p.inputDone.Load() {
		if ahead := int64(p.sched.rows(el)) - due; ahead >= p.batch {
			due += ahead / p.batch * p.batch
		}
	}
	n := max(due-sent, 0)
	var lag time.Duration
	if n > 0 {
		lag = max(el-p.sched.at(float64(sent+min(n, p.batch))), 0)
	}
	if lag < handOver {
		n, lag = 0, 0 // being handed to a free worker: on schedule
	}
	if n > p.maxBacklog.Load() {
		p.maxBacklog.Store(n)
	}
	if int64(lag) > p.maxLag.Load() {
		p.maxLag.Store(int64(lag))
	}
	return n, lag
}

// Period returns the pace of the reporting period from last to now,
// merging and resetting the workers' period histograms.
func (p *Pacer) Period(now, last time.Time) *results.PeriodPace {
	if p == nil {
		return nil
	}
	send, due := latency.New(), latency.New()
	for _, ps := range p.workers {
		ps.mu.Lock()
		send.Merge(ps.periodSend)
		due.Merge(ps.period)
		ps.periodSend.Reset()
		ps.period.Reset()
		ps.mu.Unlock()
	}
	el := now.Sub(p.start)
	rows := p.sched.rows(el)
	if p.inputDone.Load() {
		rows = min(rows, float64(p.released.Load()))
	}
	pp := &results.PeriodPace{
		Rate:           p.sched.rateOf(p.sched.stepAt(el)),
		Latency:        send.Summary(),
		LatencyFromDue: due.Summary(),
	}
	if s := now.Sub(last).Seconds(); s > 0 {
		pp.OfferedRowsPerSec = max(rows-p.lastRows, 0) / s
	}
	p.lastRows = rows
	n, lag := p.Backlog(now)
	pp.BacklogRows, pp.LagSeconds = n, lag.Seconds()
	return pp
}

// stepSamples are the points of a step at which the backlog is sampled,
// in fractions of the step: the last is its end.
var stepSamples = [...]float64{0.5, 0.75, 1}

// StepTicker returns a channel that receives the sampling times of each
// step (stepSamples), on time from the run's start (a ticker would drift
// by when the reporter started), and its stop (nil channel: no staircase).
func (p *Pacer) StepTicker() (<-chan time.Time, func()) {
	if p == nil || !p.sched.stepped() {
		return nil, func() {}
	}
	c, quit := make(chan time.Time), make(chan struct{})
	at := func(i int) time.Time {
		k, f := i/len(stepSamples), stepSamples[i%len(stepSamples)]
		return p.start.Add(time.Duration((float64(k) + f) * float64(p.sched.every)))
	}
	go func() {
		t := time.NewTimer(time.Until(at(0)))
		defer t.Stop()
		for i := 1; ; i++ {
			select {
			case now := <-t.C:
				select {
				case c <- now:
				case <-quit:
					return
				}
				t.Reset(time.Until(at(i)))
			case <-quit:
				return
			}
		}
	}()
	return c, func() { close(quit) }
}

// StepSample samples the backlog of the current step (acked: the rows
// acknowledged so far); at the step's end it judges whether the backlog
// was bounded, and halts the staircase when it was not.
//
// One sample could catch a passing hiccup of a loaded machine, so a step's
// backlog counts as unbounded only when it was above one batch per worker
// at each of the three samples (half, three quarters and the end of the
// step) and grew from the first to the last without falling in between:
// what a server slower than the rate does, (rate - capacity) x t.
func (p *Pacer) StepSample(now time.Time, acked int64) {
	n, lag := p.Backlog(now)
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	if e := p.sched.end(); e > 0 && len(p.stepEnds) > p.sched.last {
		return // the staircase is over; the run is finishing
	}
	p.samples = append(p.samples, n)
	if len(p.samples) < len(stepSamples) {
		return
	}
	limit := p.nw * p.batch
	growing := p.samples[len(p.samples)-1] > p.samples[0]
	for i, v := range p.samples {
		growing = growing && v > limit && (i == 0 || v >= p.samples[i-1])
	}
	p.samples = p.samples[:0]
	p.stepEnds = append(p.stepEnds, stepEnd{at: now.Sub(p.start), backlog: n, lag: lag, acked: acked, bounded: !growing})
	if growing {
		p.halt.Store(true)
	}
}

// Results fills res.Pace at the end of the run.
func (p *Pacer) Results(res *results.Results) {
	if p == nil {
		return
	}
	cfg := p.cfg
	h := latency.New()
	for _, ps := range p.workers {
		ps.mu.Lock()
		h.Merge(ps.due)
		ps.mu.Unlock()
	}
	pc := &results.Pace{
		Rate:               cfg.Rate,
		StepsStart:         cfg.Steps.Start,
		StepsStep:          cfg.Steps.Step,
		StepsEvery:         cfg.Steps.Every.Seconds(),
		StepsMax:           cfg.Steps.Max,
		SLOQuantile:        cfg.SLO.Quantile,
		SLOMillis:          ms(cfg.SLO.Bound),
		AchievedRowsPerSec: res.RowsPerSec,
		LatencyFromDue:     h.Summary(),
	}
	// Offered: the rows the schedule made due over the time it took to
	// make them due (not the run's seconds, which a slow server stretches).
	due := float64(p.released.Load())
	if !p.inputDone.Load() && !p.ended {
		due = max(due, p.sched.rows(res.End.Sub(p.start))) // stopped early: the schedule still ran
	}
	if t := p.sched.at(due); t > 0 {
		pc.OfferedRowsPerSec = due / t.Seconds()
	}
	pc.Halted = p.halt.Load()
	if p.sched.stepped() {
		pc.Steps, pc.SustainableRowsPerSec = p.steps(cfg.SLO, res)
		pc.EndedBy = p.endedBy(res)
		judgeStaircase(pc)
	} else if cfg.SLO.Quantile > 0 && h.Count() > 0 {
		pc.SLOQuantileMillis = h.QuantileMillis(cfg.SLO.Quantile)
		met := pc.SLOQuantileMillis < ms(cfg.SLO.Bound)
		pc.SLOMet = &met
	}
	pc.MaxBacklogRows = p.maxBacklog.Load()
	pc.MaxLagSeconds = time.Duration(p.maxLag.Load()).Seconds()
	res.Pace = pc
}

// endedBy says what ended the staircase (results.Pace.EndedBy); the
// looper's results (res.Loop) are in.
func (p *Pacer) endedBy(res *results.Results) string {
	switch {
	case p.halt.Load():
		return "backlog"
	case p.ended:
		return "max"
	case res.Loop != nil && res.Loop.Stopped:
		return "duration"
	case p.inputDone.Load():
		return "input"
	}
	return "stopped"
}

// judgeStaircase marks a sustainable rate that is a lower bound (no step
// above it ran to its end: the staircase ended before one failed) and
// lists the complete steps below it that failed.
func judgeStaircase(pc *results.Pace) {
	hi := -1
	for i, st := range pc.Steps {
		if st.OK {
			hi = i
		}
	}
	if hi < 0 {
		return
	}
	pc.SustainableAtLeast = true
	for _, st := range pc.Steps[hi+1:] {
		if st.Complete {
			pc.SustainableAtLeast = false // a step above was judged, and failed
		}
	}
	for _, st := range pc.Steps[:hi] {
		if st.Complete && !st.OK {
			pc.FailedBelow = append(pc.FailedBelow, st.RowsPerSec)
		}
	}
}

// steps judges the staircase's steps, and returns the sustainable rate:
// that of the highest step that was OK. A step below it may have failed
// (a warm-up, a passing stall): it is listed, and did not carry a backlog
// into the step that passed, which would have failed it.
func (p *Pacer) steps(slo SLO, res *results.Results) ([]results.RateStep, float64) {
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	n := max(len(p.stepHists), len(p.stepEnds))
	if p.sched.capped {
		n = min(n, p.sched.last+1)
	}
	var out []results.RateStep
	sustainable := 0.0
	var prev stepEnd
	for k := 0; k < n; k++ {
		st := results.RateStep{RowsPerSec: p.sched.rateOf(k), At: (time.Duration(k) * p.sched.every).Seconds()}
		var end stepEnd
		switch {
		case k < len(p.stepEnds):
			end, st.Complete = p.stepEnds[k], true
		default:
			// The run ended in this step: complete when it was the last
			// step of a staircase that ended (everything was sent).
			end = stepEnd{at: res.End.Sub(p.start), acked: res.Rows, bounded: true} // everything was sent
			st.Complete = p.sched.capped && k == p.sched.last && p.ended && !p.halt.Load()
		}
		st.Seconds = (end.at - time.Duration(k)*p.sched.every).Seconds()
		if st.Seconds > 0 {
			st.AchievedRowsPerSec = float64(end.acked-prev.acked) / st.Seconds
		}
		st.BacklogRows, st.LagSeconds = end.backlog, end.lag.Seconds()
		st.Bounded = end.bounded
		ok := st.Complete && st.Bounded
		if k < len(p.stepHists) {
			h := p.stepHists[k]
			st.Batches = h.Count()
			st.LatencyFromDue = h.Summary()
			if slo.Quantile > 0 && st.Batches > 0 {
				st.QuantileMillis = h.QuantileMillis(slo.Quantile)
				ok = ok && st.QuantileMillis < ms(slo.Bound)
			}
		}
		ok = ok && st.Batches > 0
		st.OK = ok
		if ok {
			sustainable = st.RowsPerSec
		}
		out = append(out, st)
		prev = end
	}
	return out, sustainable
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
