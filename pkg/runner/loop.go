package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/schema"
)

// looper runs long: with Config.Loop the inputs are read pass after pass
// (a new Splitter per input and pass), and pass p's timestamps are moved
// by (p-1) spans, the span being the first pass's largest timestamp minus
// its smallest plus one unit (the format's: ILP the lines' own units, the
// loader's precision; CSV and pgcopy microseconds). The data's interval
// cannot be known from its timestamps alone, so the next pass starts one
// unit after the last one: no row of a later pass has the timestamp of
// an earlier one, nothing is overwritten, and verification counts every
// pass's rows. With Config.Duration the reader stops cutting batches
// once the run is that old; every batch handed out is still written and
// verified.
//
// The workers read the first pass's timestamps (a scan, no copy) and the
// reader starts the second pass once every first-pass batch was scanned
// (a barrier, once: the workers drain the queue, so for the time the last
// batches of pass 1 take to be written the pipeline holds fewer batches).
// A later pass's batch is rewritten by its worker into a buffer kept by
// its job (job.go) before it is written and put back afterwards, as
// the splitter made it (its Data may be the reader's zero-copy bytes);
// only passes from the second pay that copy.
type looper struct {
	replay   bool
	deadline time.Time     // zero: none
	length   time.Duration // Duration

	mu      sync.Mutex
	starts  []int64 // the first Seq of each pass (starts[0] = 1)
	lo, hi  int64   // the first pass's timestamps
	seen    bool
	scanned int64 // first-pass batches scanned
	cut     int64 // first-pass batches cut, once the pass ended (-1 before)
	ready   chan struct{}
	span    int64
	unit    string
	stopped bool                  // reading stopped at the deadline
	cols    map[*schema.Table]int // the time column of CSV and pgcopy tables
}

// loopUnit is the unit of the span of a format's timestamps.
func loopUnit(f format.Format) string {
	if f == format.ILP {
		return "ILP timestamp units"
	}
	return "µs"
}

// checkLoop refuses a loop that cannot be replayed or would not end.
func (r *run) checkLoop() error {
	cfg := &r.cfg
	if cfg.Duration < 0 {
		return fmt.Errorf("negative duration %s", cfg.Duration)
	}
	if !cfg.Loop {
		return nil
	}
	if len(cfg.Inputs) == 0 {
		return errors.New("a loop replays its inputs: it needs files (stdin cannot be read twice)")
	}
	if cfg.Duration == 0 && cfg.Limit == 0 && cfg.Pace.Steps.Max == 0 {
		return errors.New("a loop needs an end: a duration, a row limit or a staircase with a maximum")
	}
	return nil
}

// newLooper is the loop of a run; nil when it neither loops nor has a
// duration.
func (r *run) newLooper() *looper {
	if !r.cfg.Loop && r.cfg.Duration == 0 {
		return nil
	}
	l := &looper{replay: r.cfg.Loop, starts: []int64{1}, cut: -1, ready: make(chan struct{}),
		lo: math.MaxInt64, hi: math.MinInt64, cols: map[*schema.Table]int{}}
	if r.cfg.Duration > 0 {
		l.deadline, l.length = r.start.Add(r.cfg.Duration), r.cfg.Duration
	}
	return l
}

// over reports whether the run reached its duration (the reader stops).
func (l *looper) over() bool {
	if l == nil || l.deadline.IsZero() || time.Now().Before(l.deadline) {
		return false
	}
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	return true
}

// read splits the inputs into batches for the workers, pass after pass
// with Config.Loop.
func (r *run) read(ctx context.Context, free chan *job, queues []chan *job) error {
	var seq int64
	for pass := 1; ; pass++ {
		if err := r.readPass(ctx, pass, free, queues, &seq); err != nil {
			return err
		}
		if more, err := r.nextPass(ctx, pass, seq); !more || err != nil {
			return err
		}
	}
}

// nextPass, after pass ended with batch seq, says whether to read another
// pass; after the first it waits until the span is known.
func (r *run) nextPass(ctx context.Context, pass int, seq int64) (bool, error) {
	l := r.loop
	if l == nil || !l.replay || l.over() || r.pace.Over() || r.cfg.Limit > 0 && r.n.rowsRead.Load() >= r.cfg.Limit {
		return false, nil
	}
	if pass == 1 {
		l.mu.Lock()
		l.cut = seq
		l.checkReady()
		l.mu.Unlock()
		select {
		case <-l.ready:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.seen {
			return false, nil // no rows: nothing to replay
		}
		if l.hi-l.lo >= math.MaxInt64/2 {
			return false, fmt.Errorf("the inputs' timestamps span %d..%d %s: a second pass would leave int64", l.lo, l.hi, l.unit)
		}
		l.span = loopSpan(l.hi-l.lo, l.unit)
	} else {
		l.mu.Lock()
		defer l.mu.Unlock()
	}
	l.starts = append(l.starts, seq+1)
	return true, nil
}

// checkReady closes ready once the first pass ended and all its batches
// were scanned (l.mu held).
func (l *looper) checkReady() {
	if l.cut >= 0 && l.scanned == l.cut {
		select {
		case <-l.ready:
		default:
			close(l.ready)
		}
	}
}

// passOf is the pass batch seq belongs to (l.mu held).
func (l *looper) passOf(seq int64) int {
	p := len(l.starts)
	for p > 1 && seq < l.starts[p-1] {
		p--
	}
	return p
}

// apply, on a worker, reads a first-pass batch's timestamps, or rewrites
// a later pass's batch with its timestamps shifted; restore puts the
// batch back as the splitter made it.
func (l *looper) apply(b *load.Batch, buf *scratch) (restore func(), err error) {
	if l == nil || !l.replay {
		return func() {}, nil
	}
	l.mu.Lock()
	pass := l.passOf(b.Seq)
	col, err := l.timeColumn(b)
	span := l.span
	l.mu.Unlock()
	if pass == 1 {
		return func() {}, l.scan(b, col, err)
	}
	if err != nil {
		return func() {}, err
	}
	delta := span * int64(pass-1)
	if delta/int64(pass-1) != span {
		return func() {}, fmt.Errorf("%s: pass %d: the shift (%d spans of %d) leaves int64", b.Where(), pass, pass-1, span)
	}
	var out []byte
	switch b.Format {
	case format.ILP:
		out, err = ilp.AppendShifted(buf.data[:0], b.Data, delta)
	case format.CSV:
		out, err = csv.AppendShifted(buf.data[:0], b.Data, col, delta)
	default:
		out, err = pgcopy.AppendShifted(buf.data[:0], b.Data, col, delta)
	}
	buf.data = out
	if err != nil {
		return func() {}, fmt.Errorf("pass %d: %w", pass, l.where(b, err))
	}
	data := b.Data
	b.Data = out
	return func() { b.Data = data }, nil
}

// scan merges a first-pass batch's timestamps into the range; a batch
// counts as scanned even when it fails (the run fails then anyway).
func (l *looper) scan(b *load.Batch, col int, err error) error {
	lo, hi, ok := int64(0), int64(0), false
	if err == nil {
		switch b.Format {
		case format.ILP:
			lo, hi, ok, err = ilp.TimeRange(b.Data)
		case format.CSV:
			lo, hi, ok, err = csv.TimeRange(b.Data, col)
		default:
			lo, hi, ok, err = pgcopy.TimeRange(b.Data, col)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.scanned++
	l.checkReady()
	if err != nil {
		return fmt.Errorf("cannot loop: %w", l.where(b, err))
	}
	unit := loopUnit(b.Format)
	if l.unit != "" && l.unit != unit {
		return fmt.Errorf("%s: cannot loop ILP and CSV or pgcopy inputs together (their timestamps' units differ)", b.Source)
	}
	l.unit = unit
	if ok {
		l.lo, l.hi, l.seen = min(l.lo, lo), max(l.hi, hi), true
	}
	return nil
}

// timeColumn is the index of a CSV or pgcopy batch's timestamp column
// (l.mu held).
func (l *looper) timeColumn(b *load.Batch) (int, error) {
	if b.Format == format.ILP {
		return 0, nil
	}
	if b.Table == nil {
		return 0, fmt.Errorf("%s: a %s batch without a table", b.Where(), b.Format)
	}
	if c, ok := l.cols[b.Table]; ok {
		return c, nil
	}
	for i, c := range b.Table.Columns {
		if c.Type == schema.Timestamp {
			l.cols[b.Table] = i
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s: table %s has no timestamp column to shift", b.Source, b.Table.Name)
}

// where names the input line or record of a format's TimeError.
func (l *looper) where(b *load.Batch, err error) error {
	if te := (*format.TimeError)(nil); errors.As(err, &te) {
		if te.Unit == "line" {
			return fmt.Errorf("%s: line %d: %s", b.Source, b.FirstLine+int64(te.N)-1, te.Reason)
		}
		return fmt.Errorf("%s: record %d: %s", b.Source, b.FirstRecord+int64(te.N)-1, te.Reason)
	}
	return fmt.Errorf("%s: %w", b.Where(), err)
}

// pass is the pass being read (0: not a loop).
func (l *looper) pass() int {
	if l == nil || !l.replay {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.starts)
}

// results records the loop in the results and the summary.
func (l *looper) results(cfg Config, res *results.Results) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	res.Loop = &results.Loop{Replay: l.replay, Duration: cfg.Duration.Seconds(), Stopped: l.stopped}
	if l.replay {
		res.Loop.Passes, res.Loop.Span, res.Loop.Unit = len(l.starts), l.span, l.unit
	}
}

// fraction is the progress bar's fraction done at el into the run, frac
// being the fraction of the input read (-1: unknown): a loop's files are
// read many times, so its progress is the time towards Duration (unknown
// without one); a run with a Duration alone ends at whichever comes
// first.
func (l *looper) fraction(el time.Duration, frac float64) float64 {
	switch {
	case l == nil:
		return frac
	case l.deadline.IsZero():
		return -1 // a loop ended by a row limit or a staircase
	}
	f := min(1, el.Seconds()/l.length.Seconds())
	if !l.replay {
		f = max(f, frac)
	}
	return f
}

// barPass is the progress bar's pass of a loop.
func (l *looper) barPass() string {
	if p := l.pass(); p > 0 {
		return fmt.Sprintf(", pass %d", p)
	}
	return ""
}

// ilpSpanQuantum: an ILP span is a whole number of 1000 of the lines' units
// (1 µs for nanosecond lines), plus one quantum. The runner does not know
// the lines' precision, and a server may keep less of it than was sent
// (QuestDB stores microseconds): with one nanosecond added, pass 2's first
// rows truncated to microseconds took the time of pass 1's last rows and
// a DEDUP table kept one of each.
const ilpSpanQuantum = 1000

// loopSpan is the shift between passes for timestamps spread over d units.
func loopSpan(d int64, unit string) int64 {
	if unit != loopUnit(format.ILP) {
		return d + 1 // CSV and pgcopy: microseconds, what every target keeps
	}
	return (d/ilpSpanQuantum + 1) * ilpSpanQuantum
}
