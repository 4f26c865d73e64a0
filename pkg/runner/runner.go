// Package runner is the load engine shared by every load_* command: it
// opens the inputs, cuts them into batches (pkg/split), writes the batches
// through a load.Target's Writers on parallel workers with retries, reports
// rates while running, and verifies the row counts afterwards.
//
// The reader only cuts records: for unrouted ILP input the per-line work
// (validation, metric and per-table counts) runs on the workers
// (split.Config.DeferChecks, split.Checker), so --do-load=false scales
// with them; errors still name the input's exact record, line and offset.
//
// The pipeline is bounded: one goroutine splits the inputs into batches
// taken from a fixed free-list, sends them over a channel (one per worker
// with HashWorkers) to the workers, which give them back when written. At
// most 3*Workers batches exist at any time plus one pending batch per
// (table, worker) inside the splitter, whatever the input size; a batch
// holds at most BatchSize rows and about 32 MiB (split.DefaultMaxBatchBytes),
// and a record at most 4 MiB (split.DefaultMaxRecordBytes).
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/tsload/tsload/pkg/cost"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/report/summary"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/retry"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
	"github.com/tsload/tsload/pkg/verify"
)

// Config configures a run. See loadcli for the flags that set it.
type Config struct {
	Inputs []string  // files (gzip detected by content); stdin when empty
	Stdin  io.Reader // stdin (os.Stdin when nil)
	Format format.Format
	// Table names the table of single-table csv/pgcopy inputs.
	Table string
	// Mapping says which columns of a tabular input are the timestamp,
	// the tags and the fields when the input does not say it (issue 25).
	Mapping load.Mapping

	// Workers are the writers: parallel connections, each writing one
	// batch at a time (DefaultWorkers when 0). Other parallelism has its
	// own name (Parquet's row-group readers, the decoders of a compressed
	// input).
	BatchSize, Workers int
	// HashWorkers routes each series to one worker (ILP: measurement and
	// tag set; csv and pgcopy: table and the tag columns' values), so the
	// rows of a series are written in input order.
	HashWorkers bool
	Limit       int64 // stop after this many rows (0: all)

	DoLoad bool // false: everything but the database (no connection)
	Verify bool // count the rows in the database afterwards
	// VerifyContent (with Verify) proves each table's content, not only
	// its count: fingerprints computed while reading, compared with the
	// database's aggregates (verify.Content; counts where it cannot).
	VerifyContent bool

	ReportingPeriod time.Duration // default 10s
	// AutoPeriods records the results' periods at a length chosen from the
	// load's (so that a short load has a series to chart; periods.go)
	// instead of ReportingPeriod, which still paces the progress lines.
	// A paced run keeps ReportingPeriod (its latency per period is exact).
	AutoPeriods  bool
	RetryTimeout time.Duration // total back-off time per batch, default 60s
	SkipInvalid  bool          // skip and count malformed records and rejected rows instead of failing

	// ErrorsFile, when set, receives every record skipped as malformed and
	// every row the server refused, each after a comment line naming the
	// input, line, byte offset and reason (ILP input only).
	ErrorsFile string
	// LimitErrors stops the run (failed) once more than MaxErrors records
	// were skipped or refused (0: the first one). It implies SkipInvalid.
	LimitErrors bool
	MaxErrors   int64

	Prepare load.PrepareOptions // Tables filled by the runner
	// TablePrefix starts the name of every table loaded, in the data and
	// in every query (Prepare.TablePrefix is set to it).
	TablePrefix string

	ResultsFile string
	Stderr      io.Writer // reports; os.Stderr when nil

	Loader, Target string
	Flags          map[string]any // every flag's value, typed, for the results file (secrets redacted here too)

	// Optional settings:

	// Lookup returns the schema of a use-case table (usecase.LookupTable);
	// needed for single-table pgcopy input, used for CSV. Default:
	// usecase.LookupTable.
	Lookup func(name string) *schema.Table
	// Progress draws a progress bar on Stderr (a terminal) instead of
	// printing a line per reporting period.
	Progress bool
	// Grace bounds how long in-flight writes may take once the run stops
	// (an interrupt or an error elsewhere; default 5s).
	Grace time.Duration
	// MaxRecordBytes is the longest line or record accepted (default 4 MiB).
	MaxRecordBytes int
	// SerializationPass first reads and splits the inputs without loading
	// (files only: stdin cannot be read twice), then loads, and reports both
	// rates in Results.Serialization (see serializationOf).
	SerializationPass bool
	// Cost configures the footprint and server resource measurement.
	Cost cost.Config

	// Resume continues the load this journal (journal.Read) describes: the
	// batches it has acknowledged are read and skipped, those in doubt
	// settled (resume.go). AcceptDuplicates resumes even on a target that
	// cannot settle batches in doubt, sending them again.
	Resume           *journal.Journal
	AcceptDuplicates bool
	// Pace makes the run open-loop: batches sent on a schedule (pkg/pace).
	Pace pace.Pace
	// Loop replays the inputs pass after pass, each pass's timestamps
	// shifted past the last's; Duration stops reading at that age of the
	// run (loop.go).
	Loop     bool
	Duration time.Duration

	// QueryRate, when positive, runs queries beside the writers at this
	// many per second on QueryWorkers connections of their own (default
	// queryload.DefaultWorkers), of the types and weights QueryMix says (empty:
	// every type of the input's use case), their answers checked where the
	// input says what they must be (pkg/queryload; docs/query-load.md).
	QueryRate    float64
	QueryWorkers int
	QueryMix     query.Mix
}

// Back-off bounds between retries of a batch (variables so tests can
// shorten them).
var (
	backoffMin = retry.DefaultMin
	backoffMax = retry.DefaultMax
)

// maxRejections is how many rejected rows are listed in the error.
const maxRejections = 5

func (c *Config) defaults() {
	if c.BatchSize == 0 {
		c.BatchSize = load.DefaultBatchSize
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.ReportingPeriod == 0 {
		c.ReportingPeriod = DefaultReportingPeriod
	}
	if c.RetryTimeout == 0 {
		c.RetryTimeout = DefaultRetryTimeout
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	c.Stderr = &lockedWriter{w: c.Stderr} // workers and the reporter share it
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Lookup == nil {
		c.Lookup = usecase.LookupTable
	}
	if c.LimitErrors {
		c.SkipInvalid = true
	}
}

// errInterrupted is returned (wrapped) when the run was stopped by its
// context (SIGINT/SIGTERM in loadcli).
var errInterrupted = errors.New("interrupted")

// Run loads cfg's inputs into t. It returns the results (also written to
// cfg.ResultsFile, whatever the outcome) and an error when anything was not
// loaded: a malformed record, a batch the server refused, rows it rejected
// (unless SkipInvalid), a failed verification, or an interrupt. It never
// returns a nil *results.Results. Run does not Close t.
//
// A zero setting takes its default; one out of range (Validate) is an
// error, as it is from the command line, before anything is read.
func Run(ctx context.Context, cfg Config, t load.Target) (*results.Results, error) {
	cfg.defaults()
	if err := cfg.Validate(); err != nil {
		return &results.Results{SchemaVersion: results.SchemaVersion, Loader: cfg.Loader, Target: cfg.Target,
			Status: results.StatusFailed, Error: err.Error(), Errors: 1, Periods: []results.Period{}}, err
	}
	cfg.Prepare.TablePrefix = cfg.TablePrefix
	r := &run{cfg: cfg, target: t, prefix: newPrefixer(cfg.TablePrefix)}
	if t != nil {
		r.hooks = t.Hooks()
	}
	r.verifier = &verify.Verifier{Target: t, Hooks: r.hooks, Dropped: cfg.Prepare.DropDB, Policy: r.retryPolicy(), Retries: &r.n.retries, Stderr: cfg.Stderr,
		Distinct: r.distinctKeys} // distinct.go
	r.verifier.Content = r.newContent()
	r.res = &results.Results{
		SchemaVersion: results.SchemaVersion,
		Loader:        cfg.Loader,
		Target:        cfg.Target,
		Flags:         redactFlags(cfg.Flags),
		Inputs:        append([]string(nil), cfg.Inputs...),
		BatchSize:     cfg.BatchSize,
		Workers:       cfg.Workers,
		Periods:       []results.Period{},
		RunID:         journal.NewRunID(),
	}
	if len(cfg.Inputs) == 0 {
		r.res.Inputs = []string{"stdin"}
	}
	if cfg.ResultsFile != "" {
		if err := checkResultsPath(cfg.ResultsFile); err != nil {
			r.res.Status = results.StatusFailed
			return r.res, err
		}
	}
	var noLoad *results.Results
	var err error
	if cfg.SerializationPass && cfg.DoLoad {
		noLoad, err = serializationPass(ctx, cfg, t)
	}
	if err == nil && cfg.ErrorsFile != "" {
		r.bad.file, err = createErrorsFile(cfg.ErrorsFile)
	}
	if err == nil {
		err = r.run(ctx)
	}
	if r.bad.file != nil {
		if cerr := r.bad.file.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	r.finish(ctx, err)
	r.closeJournal()
	r.continueHint() // continue.go
	if noLoad != nil {
		r.res.Serialization = serializationOf(noLoad, r.res)
		summary.Serialization(r.cfg.Stderr, r.res.Serialization)
	}
	r.res.Environment = r.environment()
	if cfg.ResultsFile != "" {
		if werr := writeResults(cfg.ResultsFile, r.res); werr != nil {
			fmt.Fprintf(cfg.Stderr, "writing results: %v\n", werr)
			if r.err == nil {
				r.err = werr
			}
		}
	}
	return r.res, r.err
}

// run is the state of one Run.
type run struct {
	cfg    Config
	target load.Target
	hooks  load.Hooks // target's, read once
	res    *results.Results
	err    error
	bad    recordProblems // the earliest malformed record, the errors file (malformed.go)
	in     inputs         // what the inputs are and how far they were read
	n      counters       // the reader's and the workers' counts

	verifier    *verify.Verifier // counts before and after, judges (pkg/verify)
	workers     []*workerStats
	start       time.Time
	interrupted bool
	cost        cost.Meter   // what the load costs (pkg/cost)
	prefix      *prefixer    // TablePrefix (nil: none)
	jr          *runJournal  // the load's journal (resume.go), nil when not journaled
	pace        *pace.Pacer  // the schedule of a paced run (pkg/pace); nil: closed loop
	loop        *looper      // Loop and Duration (loop.go); nil: neither
	steps       batchRoutine // of each batch, in order (rewrite.go, job.go)
	own         *ownData     // existing tables and CSV as lines (tabular.go)
	queries     *queryLoad   // the queries beside the writers (pkg/queryload); nil: none
}

// inputs are the run's inputs: the first one opened to read its header,
// the tables they declare, and how far they were read.
type inputs struct {
	first      *split.Splitter // the first input, opened to read its header
	firstInput *split.Input
	tables     []*schema.Table
	formats    []inputFormat // every input's format, in order
	inputGzip  []bool        // per input, whether it is gzip-compressed
	totalSize  int64         // compressed size of all inputs (-1: unknown)
	doneSize   atomic.Int64  // sizes of finished inputs
	curInput   atomic.Pointer[split.Input]
	readStop   *stopper // ends a wait for stdin (stdin.go)
}

// counters are the run's counts, shared by the reader, the workers and
// the reporter.
type counters struct {
	rowsRead  atomic.Int64
	bytesRead atomic.Int64
	// capped counts the batches cut at split.DefaultMaxBatchBytes before
	// BatchSize rows, and cappedRows is the most rows one of them held.
	capped, cappedRows atomic.Int64
	skipped            atomic.Int64
	retries            atomic.Int64
	failed             atomic.Int64 // batches that failed for good
	errorCount         atomic.Int64 // records skipped or refused (LimitErrors)
	noValueSaid        atomic.Bool  // a row without a value was said skipped (onSkip)
}

// inputFormat is the format of one input.
type inputFormat struct {
	source string
	format format.Format
}

// workerStats are one worker's counters, read by the reporter under mu.
type workerStats struct {
	mu       sync.Mutex
	rows     int64
	metrics  int64
	batches  int64
	rejected int64
	partial  bool // some batch was written partially
	tables   map[string]int64
	hist     *histogram
	rejects  []string
}

func (r *run) run(ctx context.Context) (err error) {
	cfg := &r.cfg
	if cfg.DoLoad && r.target == nil {
		return errors.New("no target to load into (use DoLoad=false to split only)")
	}
	if err := ilp.CheckTablePrefix(cfg.TablePrefix); err != nil {
		return err
	}
	if err := cfg.Pace.Validate(); err != nil {
		return err
	}
	if err := r.checkLoop(); err != nil {
		return err
	}
	defer func() {
		if r.in.firstInput != nil {
			r.in.firstInput.Close()
		}
	}()
	r.in.readStop = newStopper() // a read of stdin ends at a stop (stdin.go)
	defer r.in.readStop.watch(ctx)()
	cfg.Stdin = newStdin(cfg.Stdin, r.in.readStop.c)
	r.own = r.newOwnData(ctx)
	defer r.own.Done()
	if err := r.openInputs(); err != nil {
		if ctx.Err() != nil { // a signal while waiting for stdin's first bytes
			r.interrupted = true
			return fmt.Errorf("%w (%v) while reading the input's start: nothing was sent", errInterrupted, context.Cause(ctx))
		}
		return err
	}
	r.res.Format = r.in.first.InputFormat().String()
	if r.bad.file != nil {
		for _, in := range r.in.formats {
			if in.format != format.ILP {
				return fmt.Errorf("%s: %s input: the errors file takes ILP input only (a skipped %s record cannot be written back as a line)", in.source, in.format, in.format)
			}
		}
	}
	if cfg.DoLoad {
		// Before Prepare: input the target cannot load must not cost the
		// database anything (a --drop-db).
		for _, in := range r.in.formats {
			if err := Accepts(r.target, in.format); err != nil {
				return fmt.Errorf("%s: %s input: %w", in.source, in.format, err)
			}
		}
	}
	if err := r.own.Prepare(r.tabularInputs()); err != nil {
		return err
	}
	if r.queries, err = r.newQueryLoad(); err != nil { // before Prepare: refused at no cost
		return err
	}
	r.own.Describe(cfg.Stderr)

	if err := r.openJournal(ctx); err != nil {
		return err
	}
	var writers []load.Writer
	if cfg.DoLoad {
		opts := cfg.Prepare
		opts.Tables = r.prefix.tableList(r.own.Tables(r.in.tables))
		setup := time.Now()
		if err := r.ping(ctx); err != nil {
			return err
		}
		if err := r.target.Prepare(ctx, opts); err != nil {
			if ctx.Err() != nil {
				// A signal during the set-up: say so, not the query it cut.
				r.interrupted = true
				return fmt.Errorf("%w (%v) while preparing the target: nothing was sent", errInterrupted, context.Cause(ctx))
			}
			return fmt.Errorf("prepare: %w", err)
		}
		r.askServerVersion(ctx)
		if err := r.settleInDoubt(ctx); err != nil {
			return err
		}
		defer func() {
			// A writer's Close may still be writing (making acknowledged
			// batches durable, with retries): that time is the load's.
			t0 := time.Now()
			for i, w := range writers {
				if w == nil {
					continue
				}
				if cerr := w.Close(); cerr != nil && err == nil {
					err = fmt.Errorf("worker %d: close: %w", i, cerr)
				}
			}
			if r.started() {
				r.res.End = r.res.End.Add(time.Since(t0))
			}
		}()
		r.attachTickets()
		for i := 0; i < cfg.Workers; i++ {
			w, err := r.target.NewWriter(ctx, i)
			if err != nil {
				return fmt.Errorf("worker %d: connect: %w", i, err)
			}
			writers = append(writers, w)
		}
		defer func() {
			if cerr := r.queries.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}()
		// The hooks as they are after Prepare: a target may have learned
		// what its server is (InfluxDB's API).
		if err := r.queries.Open(ctx, r.target.Hooks()); err != nil {
			return err
		}
		if cfg.Verify {
			// Count the tables the headers declare now; tables that only
			// the data names (ILP) are counted before their first write.
			if err := r.verifier.CountBefore(ctx, tableNames(opts.Tables)); err != nil {
				return err
			}
		}
		r.res.SetupSeconds = time.Since(setup).Seconds()
	}
	return r.pipeline(ctx, writers)
}

// noteCapped counts b if the splitter cut it at its byte bound
// (split.DefaultMaxBatchBytes) before BatchSize rows: every splitter cuts
// there only once a batch's data reached the bound.
func (r *run) noteCapped(b *load.Batch) {
	if b.Rows >= r.cfg.BatchSize || len(b.Data) < split.DefaultMaxBatchBytes {
		return
	}
	r.n.capped.Add(1)
	for n := r.n.cappedRows.Load(); int64(b.Rows) > n && !r.n.cappedRows.CompareAndSwap(n, int64(b.Rows)); n = r.n.cappedRows.Load() {
	}
}

// splitConfig is the splitters' configuration.
func (r *run) splitConfig() split.Config {
	parts := 1
	if r.cfg.HashWorkers {
		parts = r.cfg.Workers
	}
	c := split.Config{
		Format:         r.cfg.Format,
		Table:          r.cfg.Table,
		BatchSize:      r.cfg.BatchSize,
		Parts:          parts,
		SkipInvalid:    r.cfg.SkipInvalid,
		MaxRecordBytes: r.cfg.MaxRecordBytes,
		Lookup:         r.cfg.Lookup,
		Columns:        r.cfg.Mapping.Columns,
		DeferChecks:    true, // split.Config applies it where it can (one part, no limit with --skip-invalid)
		OnSkip:         r.onSkip,
	}
	r.parquetConfig(&c) // parquet.go
	return c
}

// openInputs opens the first input and reads the headers of all of them,
// collecting the tables they declare for Prepare.
func (r *run) openInputs() error {
	inputs := r.cfg.Inputs
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	r.in.totalSize = 0
	seen := map[string]bool{}
	for i, path := range inputs {
		in, err := r.openInput(path)
		if err != nil {
			return err
		}
		sp, err := split.New(in, r.splitConfig())
		if err != nil {
			in.Close()
			return err
		}
		r.own.NoteInput(in.Source, sp)
		r.in.inputGzip = append(r.in.inputGzip, in.Gzip)
		if in.Size < 0 || r.in.totalSize < 0 {
			r.in.totalSize = -1
		} else {
			r.in.totalSize += in.Size
		}
		for _, t := range sp.Tables() {
			if !seen[t.Name] {
				seen[t.Name] = true
				r.in.tables = append(r.in.tables, t)
			}
		}
		r.in.formats = append(r.in.formats, inputFormat{source: in.Source, format: sp.Format()})
		if i == 0 {
			r.in.first, r.in.firstInput = sp, in
		} else {
			in.Close()
		}
	}
	return nil
}

// pipeline splits and writes every input.
func (r *run) pipeline(ctx context.Context, writers []load.Writer) error {
	cfg := &r.cfg
	nw := cfg.Workers
	r.workers = make([]*workerStats, nw)
	for i := range r.workers {
		r.workers[i] = &workerStats{tables: map[string]int64{}, hist: newHistogram()}
	}

	g, gctx := errgroup.WithContext(ctx)
	// When the run stops (an interrupt, or an error elsewhere), writes in
	// flight get Grace to finish, so what they wrote is acknowledged and
	// counted; then they are cancelled.
	wctx, cancelWrites := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWrites()
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		select {
		case <-stopWatch:
			return
		case <-gctx.Done():
		}
		r.in.readStop.stop() // a reader waiting for stdin stops too
		select {
		case <-stopWatch:
		case <-time.After(cfg.Grace):
		}
		cancelWrites()
	}()

	free := make(chan *job, 3*nw)
	for i := 0; i < 3*nw; i++ {
		free <- new(job)
	}
	queues := make([]chan *job, 1)
	if cfg.HashWorkers {
		queues = make([]chan *job, nw)
		for i := range queues {
			queues[i] = make(chan *job, 2)
		}
	} else {
		queues[0] = make(chan *job, 2*nw)
	}

	r.start = time.Now()
	r.pace = pace.New(cfg.Pace, r.start, cfg.BatchSize, nw)
	r.loop = r.newLooper()
	r.steps = batchRoutine{rewrites: r.batchRewrites(), observers: r.batchObservers()}
	r.res.Start = r.start
	stopReport := r.startReporter()
	var readDone atomic.Bool
	stopQueries := r.queries.Start(ctx) // pkg/queryload

	g.Go(func() error {
		defer func() {
			for _, q := range queues {
				close(q)
			}
		}()
		err := r.read(gctx, free, queues)
		if err == nil {
			readDone.Store(true)
			r.pace.ReadDone()
		}
		if err != nil && gctx.Err() == nil {
			r.n.failed.Add(1) // a malformed record or an unreadable input
		}
		return err
	})
	for i := 0; i < nw; i++ {
		q := queues[0]
		if cfg.HashWorkers {
			q = queues[i]
		}
		var w load.Writer
		if writers != nil {
			w = writers[i]
		}
		g.Go(func() error { return r.work(gctx, wctx, i, w, q, free) })
	}
	err := r.bad.pick(g.Wait()) // the earliest malformed record (malformed.go)
	stopQueries()
	if err == nil && ctx.Err() == nil && cfg.DoLoad {
		err = r.finishTarget(ctx)
	}
	r.res.End = time.Now()
	stopReport()
	if err == nil && ctx.Err() == nil {
		// Every query type once over everything loaded (not in the load's
		// time); over the whole input when every row of it was loaded.
		r.queries.Final(ctx, readDone.Load() && cfg.Limit == 0 && r.loop == nil && !r.pace.Over())
	}
	if ctx.Err() != nil && !(err == nil && readDone.Load()) {
		// Stopped from outside (a signal): whatever the writers said while
		// being cancelled, the run was interrupted.
		r.interrupted = true
		return fmt.Errorf("%w (%v): stopped reading, in-flight batches given %s to finish, %d rows acknowledged",
			errInterrupted, context.Cause(ctx), cfg.Grace, r.totals(false).rows)
	}
	return err
}

// finishTarget calls the target's Finish (load.Hooks.Finish) once every batch
// was acknowledged, unless rows were rejected without SkipInvalid (the run
// fails then). Its time is part of the load's wall time.
func (r *run) finishTarget(ctx context.Context) error {
	finish := r.hooks.Finish
	if finish == nil {
		return nil
	}
	if r.totals(false).rejected > 0 && !r.cfg.SkipInvalid {
		return nil // finish reports the rejected rows
	}
	t0 := time.Now()
	err := finish(ctx)
	r.res.FinishSeconds = time.Since(t0).Seconds()
	if err != nil {
		r.n.failed.Add(1)
		return fmt.Errorf("finish (after the last batch): %w", err)
	}
	if d := time.Since(t0); d >= time.Second {
		fmt.Fprintf(r.cfg.Stderr, "target finished the load in %s (counted in the load's time)\n", d.Round(time.Millisecond))
	}
	return nil
}

// readPass splits the inputs in order into batches for the workers (pass
// 1, or a later one of a loop: read).
func (r *run) readPass(ctx context.Context, pass int, free chan *job, queues []chan *job, seq *int64) error {
	inputs := r.cfg.Inputs
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	for i, path := range inputs {
		var sp *split.Splitter
		var in *split.Input
		if i == 0 && pass == 1 {
			sp, in = r.in.first, r.in.firstInput
		} else {
			var err error
			if in, err = r.openInput(path); err != nil {
				return err
			}
			c := r.splitConfig()
			if sp, err = split.New(in, c); err != nil {
				in.Close()
				return err
			}
		}
		r.in.curInput.Store(in)
		r.jr.SetInput(i)
		err := r.readOne(ctx, sp, free, queues, seq)
		sp.Release() // what a batch not handed out (after an error) holds of the input
		r.n.skipped.Add(sp.Skipped())
		if err != nil {
			if i > 0 || pass > 1 {
				in.Close()
			}
			return err
		}
		if in.Size > 0 {
			r.in.doneSize.Add(in.Size)
		}
		r.in.curInput.Store(nil)
		if i > 0 || pass > 1 {
			in.Close()
		}
		if r.cfg.Limit > 0 && r.n.rowsRead.Load() >= r.cfg.Limit || r.pace.Over() || r.loop.over() {
			break
		}
	}
	return nil
}

func (r *run) readOne(ctx context.Context, sp *split.Splitter, free chan *job, queues []chan *job, seq *int64) error {
	if r.cfg.Limit > 0 {
		sp.SetLimit(r.cfg.Limit - r.n.rowsRead.Load())
	}
	lastBytes := int64(0)
	for {
		if err := r.overErrorLimit(); err != nil { // lines the splitter skipped
			return err
		}
		var j *job
		select {
		case j = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		b := &j.Batch
		part, err := sp.Next(b)
		r.n.bytesRead.Add(sp.Bytes() - lastBytes)
		lastBytes = sp.Bytes()
		if err == io.EOF {
			free <- j
			return nil
		}
		if err != nil {
			free <- j
			r.bad.note(*seq+1, err) // the workers may hold an earlier one (malformed.go)
			return err
		}
		var stop bool
		if j.due, stop, err = r.pace.Wait(ctx, b.Rows); stop || err != nil { // a paced run: at its due time
			b.Release()
			free <- j
			return err
		}
		if r.loop.over() { // Duration: this batch is not sent
			b.Release()
			free <- j
			return nil
		}
		*seq++
		b.Seq = *seq
		r.n.rowsRead.Add(int64(b.Rows))
		r.noteCapped(b)
		if skip, err := r.jr.CutBatch(b); skip || err != nil { // acknowledged by an earlier run
			b.Release()
			free <- j
			if err != nil {
				return err
			}
			continue
		}
		q := queues[0]
		if len(queues) > 1 {
			q = queues[part]
		}
		select {
		case q <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// work writes the batches of queue q with writer w (nil: --do-load=false).
func (r *run) work(ctx, wctx context.Context, id int, w load.Writer, q chan *job, free chan *job) error {
	split.WatchFaults() // a mapped input truncated under it: workOne's error
	st := r.workers[id]
	chk := split.Checker{OnSkip: r.onSkip, FP: r.verifier.Content.Acc(id), ILPUnit: r.hooks.LineUnit, TimeColumn: r.cfg.Mapping.TimeColumn, TimeUnit: r.own.TimeUnit(), Loaded: r.own.Loaded, NoValueSkipped: r.own.Lines()} // validates and counts the splitter's unchecked batches
	for {
		var j *job
		var ok bool
		select {
		case j, ok = <-q:
			if !ok {
				return nil
			}
		case <-ctx.Done():
			r.drainAbandoned(&chk, q, free) // malformed.go
			return ctx.Err()
		}
		j.worker = id
		err := r.workOne(ctx, wctx, st, w, &chk, j)
		for _, done := range r.steps.done {
			done(j, err)
		}
		j.Release() // the one release of a batch handed out: a zero-copy batch's memory goes back to the reader
		free <- j
		if err != nil {
			return err
		}
	}
}

// workOne checks and writes batch b; after a stop (ctx done) it is
// abandoned unwritten.
func (r *run) workOne(ctx, wctx context.Context, st *workerStats, w load.Writer, chk *split.Checker, j *job) (err error) {
	defer split.CatchFault(&err)
	b := &j.Batch
	if ctx.Err() != nil {
		r.checkAbandoned(chk, b) // malformed.go: an earlier bad record than the one that stopped the run
		return ctx.Err()
	}
	for _, taken := range r.steps.taken {
		taken(j)
	}
	skipped, err := chk.Check(b, r.cfg.SkipInvalid)
	r.bad.note(b.Seq, err)
	if skipped > 0 {
		r.n.skipped.Add(int64(skipped))
		r.n.rowsRead.Add(-int64(skipped))
	}
	if err == nil {
		var undos [maxRewrites]func()
		var n int
		n, err = r.rewrite(j, &undos) // rewrite.go: the run's ordered list
		defer unrewrite(&undos, n)
	}
	if err == nil && b.Rows > 0 && w != nil && r.cfg.Verify {
		err = r.verifier.CountBefore(ctx, batchTables(b))
	}
	if err == nil {
		err = r.overErrorLimit()
	}
	if err == nil && b.Rows > 0 {
		err = r.write(ctx, wctx, st, w, j)
	}
	if err == nil {
		err = r.overErrorLimit()
	}
	if err != nil {
		r.n.failed.Add(1)
	}
	return err
}

// write sends one batch, retrying what the target marks retryable.
func (r *run) write(ctx, wctx context.Context, st *workerStats, w load.Writer, j *job) error {
	b := &j.Batch
	p := r.retryPolicy()
	p.OnRetry = func(n int, wait time.Duration, err error) {
		if all := r.n.retries.Add(1); all <= 10 || all%100 == 0 {
			fmt.Fprintf(r.cfg.Stderr, "retrying %s in %s (retry %d of this batch, %d in all): %v\n",
				b.Where(), wait.Round(time.Millisecond), n, all, err)
		}
	}
	for _, sending := range r.steps.sending {
		sending(j)
	}
	attempts := 0
	err := p.Do(ctx, func(context.Context) error {
		attempts++
		t0 := time.Now()
		ack := load.Ack{Rows: b.Rows}
		if w != nil {
			var err error
			if ack, err = w.Write(wctx, b); err != nil {
				return err
			}
		}
		lat := time.Since(t0)
		st.record(b, ack, lat)
		for _, acked := range r.steps.acked {
			acked(j, ack, lat)
		}
		return nil
	})
	if err != nil && attempts == 1 && load.IsNotWritten(err) {
		// Refused at its one attempt: not in doubt (after an attempt
		// without an answer it would be).
		for _, unwritten := range r.steps.unwritten {
			unwritten(j)
		}
	}
	var g *retry.GiveUpError
	if errors.As(err, &g) && g.Stopped {
		return fmt.Errorf("%s: not written (stopped while retrying): %w", b.Where(), g.Err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", b.Where(), err)
	}
	return nil
}

// retryPolicy is how batches and the row count are retried: within
// RetryTimeout, waits from backoffMin doubling to backoffMax.
func (r *run) retryPolicy() retry.Policy {
	return retry.Policy{Min: backoffMin, Max: backoffMax, Budget: r.cfg.RetryTimeout}
}

// record counts an acknowledged batch.
func (st *workerStats) record(b *load.Batch, ack load.Ack, lat time.Duration) {
	acked := max(0, min(ack.Rows, b.Rows))
	st.mu.Lock()
	defer st.mu.Unlock()
	st.batches++
	st.hist.record(lat)
	st.rows += int64(acked)
	if acked == b.Rows {
		st.metrics += int64(b.Metrics)
		for _, t := range b.Tables {
			st.tables[t.Name] += t.Rows
		}
		return
	}
	// Partial write: metrics and per-table rows estimated proportionally.
	st.partial = true
	if b.Rows > 0 {
		st.metrics += int64(b.Metrics) * int64(acked) / int64(b.Rows)
		for _, t := range b.Tables {
			st.tables[t.Name] += t.Rows * int64(acked) / int64(b.Rows)
		}
	}
	st.rejected += int64(b.Rows - acked)
	for _, rj := range ack.Rejected {
		if len(st.rejects) >= maxRejections {
			break
		}
		if rj.Line > 0 {
			st.rejects = append(st.rejects, fmt.Sprintf("%s: line %d: %s", b.Source, rj.Line, rj.Reason))
		} else {
			st.rejects = append(st.rejects, fmt.Sprintf("%s: %s", b.Where(), rj.Reason))
		}
	}
	if len(ack.Rejected) == 0 && len(st.rejects) < maxRejections {
		st.rejects = append(st.rejects, fmt.Sprintf("%s: %d rows not acknowledged", b.Where(), b.Rows-acked))
	}
}

// acked is what verification compares: the rows acknowledged.
func (t totals) acked() verify.Acked {
	return verify.Acked{Tables: t.tables, Rows: t.rows, Partial: t.partial}
}

// totals sums the workers' counters.
type totals struct {
	rows, metrics, batches, rejected int64
	partial                          bool
	tables                           map[string]int64
	rejects                          []string
}

func (r *run) totals(withTables bool) totals {
	var t totals
	if withTables {
		t.tables = map[string]int64{}
	}
	for _, st := range r.workers {
		st.mu.Lock()
		t.rows += st.rows
		t.metrics += st.metrics
		t.batches += st.batches
		t.rejected += st.rejected
		t.partial = t.partial || st.partial
		if withTables {
			for k, v := range st.tables {
				t.tables[k] += v
			}
			t.rejects = append(t.rejects, st.rejects...)
		}
		st.mu.Unlock()
	}
	return t
}

// finish fills the results, verifies, and prints the summary.
func (r *run) finish(ctx context.Context, err error) {
	res := r.res
	if !r.started() {
		res.Status = results.StatusFailed
		if r.interrupted {
			res.Status = results.StatusInterrupted
		}
		r.err = err
		if err != nil {
			res.Error = err.Error()
			res.Errors = 1
		}
		return
	}
	tot := r.totals(true)
	res.Seconds = res.End.Sub(res.Start).Seconds()
	res.Rows, res.Metrics, res.Batches = tot.rows, tot.metrics, tot.batches
	res.Bytes = r.n.bytesRead.Load()
	res.RowsRead = r.n.rowsRead.Load()
	res.Retries = r.n.retries.Load()
	if n := r.n.capped.Load(); n > 0 {
		res.BatchesCapped, res.BatchSizeEffective = n, int(r.n.cappedRows.Load())
	}
	res.RejectedRows = tot.rejected
	res.SkippedRecords = r.n.skipped.Load()
	res.Errors = r.n.failed.Load() + tot.rejected + res.SkippedRecords
	if res.Seconds > 0 {
		res.RowsPerSec = float64(res.Rows) / res.Seconds
		res.MetricsPerSec = float64(res.Metrics) / res.Seconds
	}
	h := newHistogram()
	for _, st := range r.workers {
		st.mu.Lock()
		h.merge(st.hist)
		st.mu.Unlock()
	}
	res.Latency = h.summary()
	r.loop.results(r.cfg, res)
	r.pace.Results(res) // after the loop's: what ended a staircase
	if r.queries != nil {
		var qerr error
		res.Queries, qerr = r.queries.Results()
		if err == nil {
			err = qerr
		}
	}

	if err == nil && tot.rejected > 0 && !r.cfg.SkipInvalid {
		err = fmt.Errorf("%d rows rejected by the server (pass --skip-invalid to accept that): %s", tot.rejected, strings.Join(tot.rejects, "; "))
	}
	r.footprintAfterLoad(ctx, tot, err)
	if err == nil && r.cfg.DoLoad && r.cfg.Verify {
		r.res.Verify, err = r.verifyAll(ctx, r.wholeLoad(tot))
		res.Retries = r.n.retries.Load()
	}
	if err == nil {
		err = r.writeRead() // --do-load=false with content verification
	}
	switch {
	case err == nil:
		res.Status = results.StatusOK
	case r.interrupted:
		res.Status = results.StatusInterrupted
	default:
		res.Status = results.StatusFailed
	}
	if err != nil {
		res.Error = err.Error()
	}
	if r.hooks.Report != nil && r.cfg.DoLoad {
		if m := r.hooks.Report(); len(m) > 0 {
			res.TargetReport = m
		}
	}
	r.finishCost(ctx)
	r.err = err
	r.describe(tot.tables)
	summary.Write(r.cfg.Stderr, res, summary.Options{DoLoad: r.cfg.DoLoad, MaxBatchBytes: split.DefaultMaxBatchBytes})
	summary.Where(r.cfg.Stderr, r.cfg.Target, res.Setup, r.serverAsked())
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
