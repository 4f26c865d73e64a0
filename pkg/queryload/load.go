// Package queryload runs queries beside a load's writers (the loaders'
// --query-rate; docs/query-load.md) and checks their answers against the
// rows acknowledged. The load engine (pkg/runner) builds a Load with New,
// hands it every batch as it is acknowledged and done (Acked, Done: it is
// one of the engine's per-batch observers) and asks it for its figures; it
// knows neither the engine nor the engine's other concerns.
package queryload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/latency"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/results"
)

// The query load (Config.QueryRate; docs/query-load.md). Beside the writers,
// QueryWorkers goroutines, each with a load.Querier of its own (its own
// connection: load.Hooks.NewQuerier), answer queries of the catalogue
// (query.Kinds of the input's use case, mixed by QueryMix) that fall due
// at QueryRate per second, open loop: a dispatcher puts each query, at its
// due time, in a backlog of MaxBacklog per worker; a query that finds
// it full is dropped and counted, so the query load never holds more than
// that, and it never waits on the writers nor they on it. Its latency is
// from the due time. It starts with the load's first acknowledged batch (a
// table loaded from line protocol exists only from its first write) and
// stops when the last batch is acknowledged: queries in flight are
// cancelled.
// Then each query type of the mix runs once more over everything loaded
// (the final round), so that every type is checked at least once.
//
// # What is checked, and how
//
// The rows a query may be checked over are those already acknowledged
// and visible. The workers note each written batch's time range; the
// contiguous prefix of batches acknowledged (by sequence number) holds
// every row of the input up to its end, and the watermark is the greatest
// time in that prefix minus the dataset's disorder (iot: gen.IoTMaxDelay
// epochs, the most a row is written after its time): no row later in the
// input has a time before the watermark. A target whose rows become
// visible a known while after their acknowledgement says so
// (load.Hooks.QueryLag): a batch joins the prefix that long after. A
// target whose acknowledgement does not mean visible at all (ILP over
// TCP, InfluxDB 3's no_sync: load.Hooks.AcksNotVisible) has the rows
// counted in the database, on a connection of its own, before they are
// checked (visible.go). A checked query's window ends at the
// watermark (and where visibility was proven), rounded down to the
// store's grain.
//
// Its expected answer is what query.Eval would say over the window's
// rows, from partial answers kept as batches are acknowledged
// (check.go, query.Partials): each acknowledged batch is read once,
// from the very bytes the writer sent (never from the input file again:
// a file replaced or rewritten while it loads cannot change an expected
// answer), into per-type partials per series and grain of time (a minute,
// or less when the dataset's start or a bucket asks), and an answer is a
// merge of partials. Memory grows with the series times the grains of the
// longest window of the mix (and, for a type that returns rows, with the
// rows that pass its threshold), not with the rows loaded. Checks run on
// a goroutine of their own, so a check never delays a query: one answer
// waits for it at most, and an answer that finds it busy is not checked
// (a type's Count minus its Checked); the checker rests three times as
// long as each check took.
//
// Answers are checked when the input is one generated line-protocol file
// (its .dataset.json names the use case, scale and time range) with no
// --out-of-order/--late/--repeat, loaded in order (no --hash-workers, no
// --loop, no resume) into tables emptied first (--drop-db); otherwise the
// queries run over data in flight and the results say why they were not
// checked. A wrong answer is named (query, window, first difference) and
// fails the run, like a verification mismatch; a query the target cannot
// state (errors.ErrUnsupported) is counted apart from errors.

// MaxBacklog is the queries waiting per query worker before more are
// dropped.
const MaxBacklog = 8

// DefaultWorkers is the query connections of a query load when none is
// given.
const DefaultWorkers = 1

// iotMaxDelay is gen.IoTMaxDelay, the most epochs an iot row is written
// after its time (pkg/gen's tests load through the runner, which imports
// this package: it cannot import pkg/gen; TestIoTMaxDelay keeps the two
// equal).
const iotMaxDelay = 6

// maxQueryNotes bounds the wrong answers and errors named.
const maxQueryNotes = 10

// queryTolerance is the relative difference within which an expected and
// a found value agree (sums in another order).
const queryTolerance = 1e-9

// Config is what a query load is asked to do, and what it must know of
// the load it runs beside (the engine's Config says the same).
type Config struct {
	Rate    float64   // queries per second (> 0)
	Workers int       // query connections; 0: DefaultWorkers
	Mix     query.Mix // the types and their weights; empty: the use case's
	Target  string    // the target's name, for messages
	Inputs  []string  // the load's inputs: one generated file ("-": stdin)
	// What the load does to its rows: each of these leaves the answers
	// unchecked (the input no longer says what the tables hold).
	DoLoad      bool   // false: no database (refused)
	TablePrefix string // starts every table's name
	HashWorkers bool   // batches cut out of input order
	Loop        bool   // the input's times shifted pass after pass
	Resumed     bool   // the tables hold rows of an earlier run
	DropDB      bool   // the tables were emptied first
	Stderr      io.Writer
}

// Load is the query load of a run; a nil *Load is none (its methods do
// nothing).
type Load struct {
	rate     float64
	nw       int
	kinds    []query.Kind
	weights  []int
	mix      string
	ds       query.Dataset
	dsStart  time.Time
	dsEnd    time.Time
	checked  bool        // answers are checked (else note says why)
	store    *checkStore // the expected answers' partials (checked)
	vis      *visibility // nil: acknowledged rows are visible (load.Hooks.AcksNotVisible)
	unit     int64       // ns per ILP timestamp unit
	disorder int64       // ns
	note     string      // why answers are not checked, or what limits it
	stderr   io.Writer
	queriers []load.Querier
	connect  func(ctx context.Context, n int) (load.Querier, error)

	jobs    chan queryJob
	issued  atomic.Int64
	dropped atomic.Int64
	maxBack atomic.Int64
	checks  chan queryCheck // to the checker, one waiting at most
	badData atomic.Bool     // a batch was partially acknowledged: no more checks

	wm watermark
	// acked is closed at the first batch written: queries start then (a
	// table loaded from line protocol exists from its first write).
	acked     chan struct{}
	ackedOnce sync.Once

	mu     sync.Mutex
	total  []queryCounts // per kind
	period []queryCounts
	wrong  []string
	errs   []string
}

type queryJob struct {
	seq uint64
	due time.Time
}

// queryCounts are one kind's figures, and its latency histogram.
type queryCounts struct {
	results.QueryType
	hist *latency.Histogram
}

func newCounts(kinds []query.Kind) []queryCounts {
	c := make([]queryCounts, len(kinds))
	for i, k := range kinds {
		c[i] = queryCounts{QueryType: results.QueryType{Name: k.Name}, hist: latency.New()}
	}
	return c
}

// New sets up the query load of cfg for a target with hooks, before
// anything is prepared: a setting that cannot work is refused here (nil,
// nil: cfg.Rate is 0, no query load).
func New(cfg Config, hooks load.Hooks) (*Load, error) {
	if cfg.Rate == 0 {
		return nil, nil
	}
	if !cfg.DoLoad {
		return nil, load.Settingf("{QueryRate} queries a load: it needs the database (not --do-load=false)")
	}
	if hooks.NewQuerier == nil {
		return nil, load.Settingf("{QueryRate}: target %s cannot be queried (it has no querier)", cfg.Target)
	}
	if len(cfg.Inputs) != 1 || cfg.Inputs[0] == "-" {
		return nil, load.Settingf("{QueryRate} needs one generated input file: its description (%s) says the use case and entities to query", envinfo.SidecarSuffix)
	}
	d, err := envinfo.ReadDataset(cfg.Inputs[0])
	if err != nil {
		return nil, fmt.Errorf("query load: %w", err)
	}
	if d == nil {
		return nil, load.Settingf("{QueryRate}: %s has no description %s (written by generate_data): the queries need its use case and entities", cfg.Inputs[0], envinfo.SidecarSuffix)
	}
	kinds, weights, err := cfg.Mix.Resolve(d.UseCase)
	if err != nil {
		return nil, load.Settingf("{QueryMix}: %w", err)
	}
	ql := &Load{rate: cfg.Rate, nw: max(cfg.Workers, DefaultWorkers), kinds: kinds, weights: weights,
		ds: query.Dataset{UseCase: d.UseCase, Scale: d.Scale, TablePrefix: cfg.TablePrefix}, stderr: cfg.Stderr, unit: int64(max(hooks.LineUnit, 1))}
	mix := make(query.Mix, len(kinds))
	for i, k := range kinds {
		mix[i] = query.Weight{Name: k.Name, Weight: weights[i]}
	}
	ql.mix = mix.String()
	ql.dsStart, err = time.Parse(time.RFC3339Nano, d.Start)
	if err == nil {
		ql.dsEnd, err = time.Parse(time.RFC3339Nano, d.End)
	}
	if err != nil {
		return nil, fmt.Errorf("query load: %s%s: time range: %w", cfg.Inputs[0], envinfo.SidecarSuffix, err)
	}
	interval, _ := time.ParseDuration(d.Interval)
	if d.UseCase == "iot" {
		ql.disorder = iotMaxDelay * int64(interval)
	}
	switch {
	case d.Format != format.ILP.String():
		ql.note = "answers not checked: the input is " + d.Format + " (checks read line protocol back)"
	case d.Disorder != nil:
		ql.note = "answers not checked: the input has rows out of order, late or repeated (generate_data's disorder)"
	case cfg.HashWorkers:
		ql.note = "answers not checked: --hash-workers cuts batches out of input order"
	case cfg.Loop:
		ql.note = "answers not checked: a loop shifts the input's times"
	case cfg.Resumed:
		ql.note = "answers not checked: a resumed load holds rows of an earlier run"
	case !cfg.DropDB:
		ql.note = "answers not checked: the tables were not emptied first (--drop-db)"
	case interval <= 0:
		ql.note = "answers not checked: the description has no interval"
	default:
		ql.checked = true // the store is made by Open
	}
	ql.wm.reset()
	ql.acked = make(chan struct{})
	ql.wm.lag = hooks.QueryLag
	ql.total, ql.period = newCounts(kinds), newCounts(kinds)
	return ql, nil
}

// Open connects the query workers, after Prepare: t are the target's
// hooks then (AcksNotVisible may depend on what Prepare learned of the
// server: InfluxDB's API).
func (ql *Load) Open(ctx context.Context, t load.Hooks) error {
	if ql == nil {
		return nil
	}
	if ql.checked && ql.store == nil {
		var notes []string
		ql.store, notes = newCheckStore(ql.kinds, &ql.ds, ql.dsStart, ql.unit, t.AcksNotVisible)
		ql.note = strings.Join(notes, "; ")
		if t.AcksNotVisible {
			ql.vis = newVisibility(ql.dsStart)
		}
	}
	ql.connect = t.NewQuerier
	for i := 0; i < ql.nw; i++ {
		q, err := t.NewQuerier(ctx, i)
		if err != nil {
			return fmt.Errorf("query worker %d: connect: %w", i, err)
		}
		ql.queriers = append(ql.queriers, q)
	}
	return nil
}

// Close closes the queriers.
func (ql *Load) Close() error {
	if ql == nil {
		return nil
	}
	var err error
	for i, q := range ql.queriers {
		if cerr := q.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("query worker %d: close: %w", i, cerr)
		}
	}
	ql.queriers = nil
	return err
}

// Start runs the dispatcher and the workers until stop is called, which
// returns once they all ended.
func (ql *Load) Start(ctx context.Context) (stop func()) {
	if ql == nil {
		return func() {}
	}
	qctx, cancel := context.WithCancel(ctx)
	ql.jobs = make(chan queryJob, MaxBacklog*ql.nw)
	ql.checks = make(chan queryCheck, 1)
	checked, stopping := make(chan struct{}), make(chan struct{})
	go ql.checker(stopping, checked)
	var wg sync.WaitGroup
	if ql.vis != nil && ql.checked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ql.watch(qctx) // visible.go
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		ql.dispatch(qctx)
	}()
	for _, q := range ql.queriers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-qctx.Done():
					return
				case j := <-ql.jobs:
					ql.one(qctx, q, j.seq, j.due, false)
				}
			}
		}()
	}
	return func() {
		cancel()
		close(stopping)
		wg.Wait()
		close(ql.checks)
		<-checked // the answers handed over are checked
	}
}

// dispatch puts each query in the backlog at its due time.
func (ql *Load) dispatch(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-ql.acked:
	}
	t0 := time.Now()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for k := uint64(0); ; k++ {
		due := t0.Add(time.Duration(float64(k) / ql.rate * float64(time.Second)))
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return
		}
		ql.issued.Add(1)
		select {
		case ql.jobs <- queryJob{seq: k, due: due}:
			if n := int64(len(ql.jobs)); n > ql.maxBack.Load() {
				ql.maxBack.Store(n) // one writer: the dispatcher
			}
		default:
			ql.dropped.Add(1)
		}
	}
}

// Final runs each kind once over everything acknowledged (the load has
// ended; complete: every row of the input was acknowledged).
//
// It runs on a connection of its own (number QueryWorkers): the workers'
// queries were cancelled at the load's end, and a database client may
// close a connection whose query was cancelled.
func (ql *Load) Final(ctx context.Context, complete bool) {
	if ql == nil || len(ql.queriers) == 0 {
		return
	}
	q, err := ql.connect(ctx, ql.nw)
	if err != nil {
		ql.mu.Lock()
		ql.errs = append(ql.errs, fmt.Sprintf("final round: connect: %v", err))
		ql.mu.Unlock()
		fmt.Fprintf(ql.stderr, "query load: final round: connect: %v\n", err)
		return
	}
	defer func() {
		if err := q.Close(); err != nil {
			fmt.Fprintf(ql.stderr, "query load: final round: close: %v\n", err)
		}
	}()
	if complete {
		ql.wm.complete(ctx)
	} else if ql.wm.lag > 0 {
		ql.wm.complete(ctx) // waits for the last batch to be visible
		ql.wm.mu.Lock()
		ql.wm.finished = false
		ql.wm.mu.Unlock()
	}
	if ql.vis != nil && ql.checked {
		ql.catchUp(ctx, q) // visible.go
	}
	base := uint64(1) << 62 // apart from the dispatcher's sequence numbers
	for i := range ql.kinds {
		for seq := base + uint64(i); ; seq += uint64(len(ql.kinds)) {
			if query.Pick(ql.weights, seq) == i || seq > base+1000 {
				ql.one(ctx, q, seq, time.Now(), true)
				break
			}
		}
	}
}

// one builds query seq, runs it with q, records the answer and hands it
// to the checker (final: checks it here).
func (ql *Load) one(ctx context.Context, q load.Querier, seq uint64, due time.Time, final bool) {
	ki := query.Pick(ql.weights, seq)
	k := &ql.kinds[ki]
	checkable, end := ql.window()
	qy := k.Build(&ql.ds, seq, ql.dsStart, end)
	if checkable {
		ql.store.hold(qy.Start) // its partials stay until it is checked
	}
	ans, err := q.Query(ctx, qy)
	lat := time.Since(due)
	handed := false
	defer func() {
		if checkable && !handed {
			ql.store.release(qy.Start)
		}
	}()
	if ctx.Err() != nil && err != nil {
		return // stopped with the load: not a failure of the target
	}
	ql.mu.Lock()
	for _, c := range []*queryCounts{&ql.total[ki], &ql.period[ki]} {
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			c.Unsupported++
		case err != nil:
			c.Errors++
		default:
			c.Count++
			c.Rows += int64(len(ans.Rows))
			c.hist.Record(lat)
		}
	}
	if err != nil && !errors.Is(err, errors.ErrUnsupported) && len(ql.errs) < maxQueryNotes {
		ql.errs = append(ql.errs, fmt.Sprintf("%s: %v", qy, err))
		fmt.Fprintf(ql.stderr, "query %s failed: %v\n", k.Name, err)
	}
	ql.mu.Unlock()
	if err != nil || !checkable {
		return
	}
	c := queryCheck{ki: ki, q: qy, ans: ans}
	if final {
		handed = true // check releases it
		ql.check(c)
		return
	}
	select {
	case ql.checks <- c:
		handed = true // check releases it
	default: // the checker is busy: not checked
	}
}

// queryCheck is an answer to check.
type queryCheck struct {
	ki  int
	q   *query.Query
	ans *query.Answer
}

// checkDuty bounds the checker's share of a core: after a check that
// took d it rests (checkDuty-1)*d, and answers that come meanwhile are
// not checked.
const checkDuty = 4

// checker checks the answers handed to it until checks is closed; it
// stops resting when stopping is closed.
func (ql *Load) checker(stopping <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for c := range ql.checks {
		t0 := time.Now()
		ql.check(c)
		rest := time.NewTimer((checkDuty - 1) * time.Since(t0))
		select {
		case <-rest.C:
		case <-stopping:
			rest.Stop()
		}
	}
}

// check compares an answer with the expected one (an answer the store
// cannot say is not checked).
func (ql *Load) check(c queryCheck) {
	want, ok := ql.store.answer(c.ki, c.q)
	ql.store.release(c.q.Start)
	if !ok || ql.badData.Load() {
		return
	}
	c.ans.Sort()
	diff := query.Diff(want, c.ans, queryTolerance)
	ql.mu.Lock()
	defer ql.mu.Unlock()
	for _, n := range []*queryCounts{&ql.total[c.ki], &ql.period[c.ki]} {
		n.Checked++
		if diff != "" {
			n.Wrong++
		}
	}
	if diff != "" && len(ql.wrong) < maxQueryNotes {
		ql.wrong = append(ql.wrong, fmt.Sprintf("%s: %s", c.q, diff))
		fmt.Fprintf(ql.stderr, "query %s: WRONG ANSWER: %s\n", c.q, diff)
	}
}

// window is the end of the next query's window, and whether its answer
// can be checked.
func (ql *Load) window() (bool, time.Time) {
	e, acked := ql.checkEnd(true)
	if ql.checked && !ql.badData.Load() && e > ql.dsStart.UnixNano() {
		return true, time.Unix(0, e).UTC()
	}
	// Over data in flight: up to what was acknowledged, or the dataset's
	// first hour before anything was.
	if acked > ql.dsStart.UnixNano() {
		return false, time.Unix(0, acked+1).UTC()
	}
	return false, ql.dsStart.Add(time.Hour)
}

// checkEnd is where a checked window may end (ns; MinInt64: nowhere):
// the watermark rounded down to the store's grain (up, once every row was
// acknowledged), and with visible, not past what was proven visible; and
// the greatest time acknowledged.
func (ql *Load) checkEnd(visible bool) (int64, int64) {
	w, acked, finished := ql.wm.get(ql.disorder)
	if !ql.checked || w == math.MinInt64 {
		return math.MinInt64, acked
	}
	g := int64(ql.store.grain)
	e := floorTo(w, g)
	if finished && e < w {
		e += g
	}
	if visible && ql.vis != nil {
		e = min(e, ql.vis.upTo.Load())
	}
	return e, acked
}

func floorTo(t, g int64) int64 {
	r := t % g
	if r < 0 {
		r += g
	}
	return t - r
}

// forgetEvery is how many batches pass between two forgets of the store.
const forgetEvery = 16

// Done notes batch b given back by the writers: err nil when it was
// written whole (its data as the splitter cut it), read then into the
// store.
func (ql *Load) Done(b *load.Batch, err error) {
	if ql == nil || err != nil {
		return
	}
	lo, hi, ok := int64(0), int64(0), false
	switch {
	case b.Format != format.ILP:
	case ql.checked && ql.store != nil && !ql.badData.Load():
		// One read gives the partials and the batch's time range: the
		// times of the rows the queries read, all the watermark needs.
		var err error
		if lo, hi, ok, err = ql.store.add(b.Data); err != nil && !ql.badData.Swap(true) {
			fmt.Fprintf(ql.stderr, "query load: checks stopped: %v\n", err)
		}
	case b.Rows > 0:
		var err error
		lo, hi, ok, err = ilp.TimeRange(b.Data)
		if err != nil {
			ql.badData.Store(true)
			ok = false
		}
	}
	ql.wm.add(b.Seq, lo*ql.unit, hi*ql.unit, ok)
	ql.ackedOnce.Do(func() { close(ql.acked) })
	if ql.checked && b.Seq%forgetEvery == 0 {
		e, _ := ql.checkEnd(false)
		v := time.Unix(0, math.MinInt64)
		if ql.vis != nil {
			v = time.Unix(0, ql.vis.upTo.Load())
		}
		if e != math.MinInt64 {
			ql.store.forget(time.Unix(0, e), v)
		}
	}
}

// Acked notes a write of batch b acknowledged: in part, the input no
// longer says what the tables hold, and no later answer is checked.
func (ql *Load) Acked(b *load.Batch, ack load.Ack) {
	if ql != nil && ack.Rows < b.Rows {
		ql.badData.Store(true)
	}
}

// watermark follows the contiguous prefix of acknowledged batches.
type watermark struct {
	mu       sync.Mutex
	next     int64               // the first batch not in the prefix
	pending  map[int64]batchSpan // acknowledged after a gap
	max      int64               // the greatest time in the prefix (ns)
	anyMax   int64               // the greatest time acknowledged
	finished bool                // every row acknowledged
	// lag: a batch joins the prefix lag after its acknowledgement
	// (load.Hooks.QueryLag); ready holds those acknowledged in order
	// since.
	lag     time.Duration
	ready   []readySpan
	lastAck time.Time
}

type readySpan struct {
	at time.Time
	batchSpan
}

type batchSpan struct {
	lo, hi int64
	ok     bool
}

func (w *watermark) reset() {
	w.next, w.pending, w.max, w.anyMax = 1, map[int64]batchSpan{}, math.MinInt64, math.MinInt64
}

func (w *watermark) add(seq, lo, hi int64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ok {
		w.anyMax = max(w.anyMax, hi)
	}
	w.pending[seq] = batchSpan{lo, hi, ok}
	now := time.Now()
	w.lastAck = now
	for {
		s, found := w.pending[w.next]
		if !found {
			break
		}
		delete(w.pending, w.next)
		w.ready = append(w.ready, readySpan{now, s})
		w.next++
	}
	w.settle(now) // ready holds only what was acknowledged within the lag
}

// settle moves the batches acknowledged lag ago into the prefix (w.mu
// held).
func (w *watermark) settle(now time.Time) {
	i := 0
	for ; i < len(w.ready) && !w.ready[i].at.After(now.Add(-w.lag)); i++ {
		if s := w.ready[i].batchSpan; s.ok {
			w.max = max(w.max, s.hi)
		}
	}
	w.ready = append(w.ready[:0], w.ready[i:]...)
}

// complete marks every row acknowledged, once the last is visible.
func (w *watermark) complete(ctx context.Context) {
	w.mu.Lock()
	wait := time.Until(w.lastAck.Add(w.lag))
	w.mu.Unlock()
	if wait > 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
	w.mu.Lock()
	w.settle(time.Now().Add(w.lag)) // all of it
	w.finished = true
	w.mu.Unlock()
}

// get is the watermark (exclusive; MinInt64 when none), the greatest
// time acknowledged and whether every row was.
func (w *watermark) get(disorder int64) (int64, int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle(time.Now())
	if w.max == math.MinInt64 {
		return w.max, w.anyMax, w.finished
	}
	if w.finished {
		return w.max + 1, w.anyMax, true
	}
	return w.max - disorder, w.anyMax, false
}

// PeriodCounts returns the period's figures and starts the next period.
func (ql *Load) PeriodCounts() []results.QueryType {
	if ql == nil {
		return nil
	}
	ql.mu.Lock()
	defer ql.mu.Unlock()
	out := summarize(ql.period)
	ql.period = newCounts(ql.kinds)
	return out
}

func summarize(cs []queryCounts) []results.QueryType {
	out := make([]results.QueryType, len(cs))
	for i, c := range cs {
		out[i] = c.QueryType
		out[i].LatencyFromDue = c.hist.Summary()
	}
	return out
}

// Results is the query load's part of the results, and an error naming
// the wrong answers when there were some.
func (ql *Load) Results() (*results.Queries, error) {
	if ql == nil {
		return nil, nil
	}
	ql.mu.Lock()
	defer ql.mu.Unlock()
	res := &results.Queries{Rate: ql.rate, Workers: ql.nw, Mix: ql.mix, Issued: ql.issued.Load(), Dropped: ql.dropped.Load(),
		MaxBacklog: ql.maxBack.Load(), BacklogCap: MaxBacklog * ql.nw, Checked: ql.checked, Note: ql.note,
		Types: summarize(ql.total), Wrong: ql.wrong, Errors: ql.errs}
	if ql.badData.Load() && res.Checked {
		res.Note = "checks stopped at a batch acknowledged in part (or with a line that could not be read)"
	}
	if n := ql.vis.note(); n != "" && res.Checked {
		res.Note = strings.TrimPrefix(res.Note+"; "+n, "; ")
	}
	all := queryCounts{QueryType: results.QueryType{Name: "all"}, hist: latency.New()}
	for _, c := range ql.total {
		all.Count += c.Count
		all.Errors += c.Errors
		all.Unsupported += c.Unsupported
		all.Checked += c.Checked
		all.Wrong += c.Wrong
		all.Rows += c.Rows
		all.hist.Merge(c.hist)
	}
	res.All = summarize([]queryCounts{all})[0]
	if wrong := all.Wrong; wrong > 0 {
		return res, fmt.Errorf("%d wrong query answers: %s", wrong, strings.Join(ql.wrong, "; "))
	}
	return res, nil
}
