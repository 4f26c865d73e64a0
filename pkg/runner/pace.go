package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tsload/tsload/pkg/results"
)

// Open-loop pacing (Config.Pace). The reader gives every batch a due time
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

// pacer is the pace of one run; a nil pacer is the closed loop.
type pacer struct {
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
	stepHists []*histogram // from due, by the step the batch was due in
	stepEnds  []stepEnd    // samples at each step's end
	samples   []int64      // the current step's backlog samples (stepSamples)
	lastRows  float64      // schedule rows at the previous period's end (reporter only)

	maxBacklog atomic.Int64
	maxLag     atomic.Int64 // ns
}

// paceStats are one worker's latencies from due, and its period
// histograms, merged by the reporter.
type paceStats struct {
	mu                 sync.Mutex
	due                *histogram // the run
	periodSend, period *histogram // the reporting period: from send, from due
}

// stepEnd is the state at a step's end.
type stepEnd struct {
	at      time.Duration
	backlog int64
	lag     time.Duration
	acked   int64 // rows acknowledged so far
	bounded bool  // see stepSample
}

// newPacer returns the pacer of r's run, nil when the run is not paced.
// It is called once the workers' stats exist, when the run starts.
func (r *run) newPacer() *pacer {
	if !r.cfg.Pace.On() {
		return nil
	}
	p := &pacer{
		sched:   newSchedule(r.cfg.Pace),
		start:   r.start,
		batch:   int64(r.cfg.BatchSize),
		nw:      int64(r.cfg.Workers),
		timer:   time.NewTimer(time.Hour),
		workers: make([]*paceStats, r.cfg.Workers),
	}
	p.timer.Stop()
	for i := range p.workers {
		p.workers[i] = &paceStats{due: newHistogram(), periodSend: newHistogram(), period: newHistogram()}
	}
	return p
}

// wait returns the due time of the next batch, of rows rows, at that time
// (at once when it has passed). stop is true, and the batch is not to be
// sent, when a capped staircase ended before it fell due.
func (p *pacer) wait(ctx context.Context, rows int) (due time.Time, stop bool, err error) {
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

// over reports whether a capped staircase ended (the reader stops).
func (p *pacer) over() bool { return p != nil && p.ended }

// readDone marks the input as read: no rows are due beyond it.
func (p *pacer) readDone() {
	if p != nil {
		p.inputDone.Store(true)
	}
}

// taken counts a batch of rows rows as sent: a worker took it.
func (p *pacer) taken(rows int) {
	if p != nil {
		p.sent.Add(int64(rows))
	}
}

// acked records the latency from due of a batch that fell due at due,
// acknowledged now after a send that took sendLat, in worker's histograms
// and its step's.
func (p *pacer) acked(worker int, due time.Time, sendLat time.Duration) {
	if p == nil || due.IsZero() {
		return
	}
	lat := time.Since(due)
	ps := p.workers[worker]
	ps.mu.Lock()
	ps.due.record(lat)
	ps.period.record(lat)
	ps.periodSend.record(sendLat)
	ps.mu.Unlock()
	if p.sched.stepped() {
		k := p.sched.stepAt(due.Sub(p.start) - 1) // due at a step's end: its last batch
		p.stepMu.Lock()
		for len(p.stepHists) <= k {
			// Two significant digits (1%) for a step's quantile: a
			// staircase without MAX may have many steps, and a
			// three-digit histogram is ~180 KiB.
			p.stepHists = append(p.stepHists, &histogram{hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 2)})
		}
		p.stepHists[k].record(lat)
		p.stepMu.Unlock()
	}
}

// backlog returns the rows due and not sent at now, and the lag.
func (p *pacer) backlog(now time.Time) (int64, time.Duration) {
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

// period returns the pace of the reporting period from last to now,
// merging and resetting the workers' period histograms.
func (p *pacer) period(now, last time.Time) *results.PeriodPace {
	if p == nil {
		return nil
	}
	send, due := newHistogram(), newHistogram()
	for _, ps := range p.workers {
		ps.mu.Lock()
		send.merge(ps.periodSend)
		due.merge(ps.period)
		ps.periodSend.h.Reset()
		ps.period.h.Reset()
		ps.mu.Unlock()
	}
	el := now.Sub(p.start)
	rows := p.sched.rows(el)
	if p.inputDone.Load() {
		rows = min(rows, float64(p.released.Load()))
	}
	pp := &results.PeriodPace{
		Rate:           p.sched.rateOf(p.sched.stepAt(el)),
		Latency:        send.summary(),
		LatencyFromDue: due.summary(),
	}
	if s := now.Sub(last).Seconds(); s > 0 {
		pp.OfferedRowsPerSec = max(rows-p.lastRows, 0) / s
	}
	p.lastRows = rows
	n, lag := p.backlog(now)
	pp.BacklogRows, pp.LagSeconds = n, lag.Seconds()
	return pp
}

// stepSamples are the points of a step at which the backlog is sampled,
// in fractions of the step: the last is its end.
var stepSamples = [...]float64{0.5, 0.75, 1}

// stepTicker returns a channel that receives the sampling times of each
// step (stepSamples), on time from the run's start (a ticker would drift
// by when the reporter started), and its stop (nil channel: no staircase).
func (p *pacer) stepTicker() (<-chan time.Time, func()) {
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

// stepSample samples the backlog of the current step (acked: the rows
// acknowledged so far); at the step's end it judges whether the backlog
// was bounded, and halts the staircase when it was not.
//
// One sample could catch a passing hiccup of a loaded machine, so a step's
// backlog counts as unbounded only when it was above one batch per worker
// at each of the three samples (half, three quarters and the end of the
// step) and grew from the first to the last without falling in between:
// what a server slower than the rate does, (rate - capacity) x t.
func (p *pacer) stepSample(now time.Time, acked int64) {
	n, lag := p.backlog(now)
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

// results fills res.Pace at the end of the run.
func (p *pacer) results(cfg Pace, res *results.Results) {
	if p == nil {
		return
	}
	h := newHistogram()
	for _, ps := range p.workers {
		ps.mu.Lock()
		h.merge(ps.due)
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
		LatencyFromDue:     h.summary(),
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
	} else if cfg.SLO.Quantile > 0 && h.h.TotalCount() > 0 {
		pc.SLOQuantileMillis = float64(h.h.ValueAtQuantile(cfg.SLO.Quantile)) / 1000
		met := pc.SLOQuantileMillis < ms(cfg.SLO.Bound)
		pc.SLOMet = &met
	}
	pc.MaxBacklogRows = p.maxBacklog.Load()
	pc.MaxLagSeconds = time.Duration(p.maxLag.Load()).Seconds()
	res.Pace = pc
}

// endedBy says what ended the staircase (results.Pace.EndedBy); the
// looper's results (res.Loop) are in.
func (p *pacer) endedBy(res *results.Results) string {
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
func (p *pacer) steps(slo SLO, res *results.Results) ([]results.RateStep, float64) {
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
			st.Batches = h.h.TotalCount()
			st.LatencyFromDue = h.summary()
			if slo.Quantile > 0 && st.Batches > 0 {
				st.QuantileMillis = float64(h.h.ValueAtQuantile(slo.Quantile)) / 1000
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

// line is the paced part of a period's progress line.
func paceLine(pp *results.PeriodPace) string {
	if pp == nil {
		return ""
	}
	return fmt.Sprintf(" | offered %s rows/s, backlog %s rows, lag %s, p99 from due %.1f ms",
		rate(pp.OfferedRowsPerSec), count(pp.BacklogRows), seconds(pp.LagSeconds).Round(time.Millisecond), pp.LatencyFromDue.P99)
}

// writePace prints a paced run's summary lines.
func writePace(w io.Writer, pc *results.Pace) {
	if pc == nil {
		return
	}
	l := pc.LatencyFromDue
	fmt.Fprintf(w, "paced: offered %s rows/s, achieved %s rows/s; max backlog %s rows, max lag %s\n",
		rate(pc.OfferedRowsPerSec), rate(pc.AchievedRowsPerSec), count(pc.MaxBacklogRows), seconds(pc.MaxLagSeconds).Round(time.Millisecond))
	fmt.Fprintf(w, "latency from due ms (what a producer sees; batch latency above is from the send): mean %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f\n", l.Mean, l.P50, l.P90, l.P99, l.Max)
	writeSLO(w, pc)
	if len(pc.Steps) == 0 {
		return
	}
	var b strings.Builder
	for i, st := range pc.Steps {
		if i > 0 {
			b.WriteString(" | ")
		}
		verdict := "ok"
		switch {
		case !st.Complete:
			verdict = "partial"
		case !st.Bounded:
			verdict = "backlog " + count(st.BacklogRows)
		case !st.OK:
			verdict = "over SLO"
		}
		fmt.Fprintf(&b, "%s: p99 %.1f ms %s", rate(st.RowsPerSec), st.LatencyFromDue.P99, verdict)
	}
	fmt.Fprintf(w, "steps (rows/s): %s\n", b.String())
	for _, st := range pc.Steps {
		if pc.Halted && st.Complete && !st.Bounded {
			fmt.Fprintf(w, "staircase stopped after %s rows/s: its backlog (%s rows) was not bounded\n", rate(st.RowsPerSec), count(st.BacklogRows))
			break
		}
	}
	slo := "a bounded backlog"
	if pc.SLOQuantile > 0 {
		slo = fmt.Sprintf("p%g from due < %g ms and a bounded backlog", pc.SLOQuantile, pc.SLOMillis)
	}
	complete := false
	for _, st := range pc.Steps {
		complete = complete || st.Complete
	}
	switch {
	case pc.SustainableRowsPerSec > 0 && pc.SustainableAtLeast:
		fmt.Fprintf(w, "sustainable rate: at least %s rows/s (the highest step that kept %s; %s before a step failed: the server's limit was not reached)\n",
			rate(pc.SustainableRowsPerSec), slo, endedHow(pc))
	case pc.SustainableRowsPerSec > 0:
		fmt.Fprintf(w, "sustainable rate: %s rows/s (the highest step that kept %s)\n", rate(pc.SustainableRowsPerSec), slo)
	case !complete:
		fmt.Fprintf(w, "sustainable rate: not measured (%s during the first step: give more input, --loop, or shorter steps)\n", endedHow(pc))
	default:
		fmt.Fprintf(w, "sustainable rate: none (no step kept %s)\n", slo)
	}
	if n := len(pc.FailedBelow); n > 0 {
		rates := make([]string, n)
		for i, v := range pc.FailedBelow {
			rates[i] = rate(v)
		}
		fmt.Fprintf(w, "but a lower step failed: %s rows/s (a passing stall, or a rate near the limit: run the staircase again before quoting the sustainable rate)\n",
			strings.Join(rates, ", "))
	}
}

// endedHow says what ended a staircase (results.Pace.EndedBy).
func endedHow(pc *results.Pace) string {
	switch pc.EndedBy {
	case "max":
		return "the step at MAX (" + rate(pc.StepsMax) + " rows/s) ended the staircase"
	case "input":
		return "the input ended"
	case "duration":
		return "--duration ended the run"
	case "backlog":
		return "a backlog ended the staircase"
	}
	return "the run stopped"
}

// writeSLO prints whether a constant rate's run kept its SLO.
func writeSLO(w io.Writer, pc *results.Pace) {
	if pc.SLOMet == nil {
		return
	}
	verdict := "met"
	if !*pc.SLOMet {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "SLO p%g from due < %g ms: %s (p%g from due %.1f ms over the run)\n", pc.SLOQuantile, pc.SLOMillis, verdict, pc.SLOQuantile, pc.SLOQuantileMillis)
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
