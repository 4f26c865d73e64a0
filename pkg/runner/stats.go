package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/latency"
	"github.com/tsload/tsload/pkg/report/summary"
	"github.com/tsload/tsload/pkg/results"
)

// histogram is a latency.Histogram under the names the engine's files use.
type histogram struct{ *latency.Histogram }

func newHistogram() *histogram { return &histogram{latency.New()} }

func (h *histogram) record(d time.Duration) { h.Record(d) }

func (h *histogram) merge(o *histogram) { h.Merge(o.Histogram) }

func (h *histogram) summary() results.LatencySummary { return h.Summary() }

// startReporter prints a line per reporting period (or redraws a progress
// bar every second when cfg.Progress) until the returned func is called.
func (r *run) startReporter() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	var addr string
	if r.target != nil {
		addr = r.target.ServerAddr()
	}
	r.cost.Start(r.cfg.Cost, r.cfg.DoLoad, addr, r.cfg.ReportingPeriod)
	every, auto := r.recordEvery() // periods.go
	r.res.PeriodSeconds, r.res.PeriodsAuto = every.Seconds(), auto
	go func() {
		defer close(finished)
		record := time.NewTicker(every)
		defer record.Stop()
		var printTick <-chan time.Time // the progress lines, when not at every record
		if auto && !r.cfg.Progress {
			t := time.NewTicker(r.cfg.ReportingPeriod)
			defer t.Stop()
			printTick = t.C
		}
		stepEnds, stopSteps := r.pace.StepTicker()
		defer stopSteps()
		var bar <-chan time.Time
		if r.cfg.Progress {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			bar = t.C
		}
		last := r.start
		var lastTot totals
		lastPrint, lastPrintTot := r.start, totals{}
		for {
			select {
			case <-done:
				if r.cfg.Progress {
					fmt.Fprint(r.cfg.Stderr, "\r\033[K")
				}
				// The last, partial period, so the series covers the run.
				if now := time.Now(); now.Sub(last) >= time.Millisecond {
					r.period(now, last, lastTot)
				}
				return
			case now := <-record.C:
				p, tot := r.period(now, last, lastTot)
				last, lastTot = now, tot
				if auto {
					if e := r.coarsen(every); e != every {
						every = e
						record.Reset(every)
						r.res.PeriodSeconds = every.Seconds()
					}
				} else if !r.cfg.Progress {
					r.printPeriod(p.At, p.RowsPerSec, p.MetricsPerSec, tot, summary.PeriodPace(p.Pace))
				}
			case now := <-printTick:
				tot := r.totals(false)
				if s := now.Sub(lastPrint).Seconds(); s > 0 {
					r.printPeriod(now.Sub(r.start).Seconds(), float64(tot.rows-lastPrintTot.rows)/s, float64(tot.metrics-lastPrintTot.metrics)/s, tot, "")
				}
				lastPrint, lastPrintTot = now, tot
			case now := <-bar:
				r.drawBar(now)
			case now := <-stepEnds:
				r.pace.StepSample(now, r.totals(false).rows)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		r.cost.Stop()
	}
}

// printPeriod prints a progress line: the rates of the period that ended
// at seconds since the start, and overall.
func (r *run) printPeriod(at, rows, metrics float64, tot totals, pace string) {
	fmt.Fprintf(r.cfg.Stderr, "[%7.1fs] period %s rows/s %s metrics/s | overall %s rows/s %s metrics/s | %s rows%s\n",
		at, rate(rows), rate(metrics), rate(float64(tot.rows)/at), rate(float64(tot.metrics)/at), count(tot.rows), pace)
}

// period appends the period from last to now to the results.
func (r *run) period(now, last time.Time, lastTot totals) (results.Period, totals) {
	tot := r.totals(false)
	p := results.Period{
		At:        now.Sub(r.start).Seconds(),
		Seconds:   now.Sub(last).Seconds(),
		Rows:      tot.rows - lastTot.rows,
		Metrics:   tot.metrics - lastTot.metrics,
		Batches:   tot.batches - lastTot.batches,
		TotalRows: tot.rows,
		Server:    r.cost.Period(),
		Pace:      r.pace.Period(now, last),
		Pass:      r.loop.pass(),
		Queries:   r.queries.PeriodCounts(), // pkg/queryload
	}
	if p.Seconds > 0 {
		p.RowsPerSec = float64(p.Rows) / p.Seconds
		p.MetricsPerSec = float64(p.Metrics) / p.Seconds
	}
	r.res.Periods = append(r.res.Periods, p)
	return p, tot
}

// drawBar redraws the progress bar: rows done, rate, and (for files) the
// fraction of the input read and the estimated time left.
func (r *run) drawBar(now time.Time) {
	tot := r.totals(false)
	el := now.Sub(r.start).Seconds()
	rps := float64(tot.rows) / el
	frac := -1.0
	if r.in.totalSize > 0 {
		read := r.in.doneSize.Load()
		if in := r.in.curInput.Load(); in != nil {
			read += in.CompressedRead()
		}
		frac = min(float64(read)/float64(r.in.totalSize), 1)
	}
	frac = r.loop.fraction(now.Sub(r.start), frac) // Loop, Duration (loop.go)
	const width = 30
	var b strings.Builder
	b.WriteString("\r\033[K")
	if frac >= 0 {
		n := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] ")
		fmt.Fprintf(&b, "%3.0f%% ", frac*100)
	}
	fmt.Fprintf(&b, "%s rows", count(tot.rows))
	if frac > 0.001 && frac < 1 {
		fmt.Fprintf(&b, " of ~%s", count(int64(float64(tot.rows)/frac)))
	}
	fmt.Fprintf(&b, ", %s rows/s", rate(rps))
	b.WriteString(r.loop.barPass())
	if r.pace != nil { // a paced run: how far behind the schedule
		n, lag := r.pace.Backlog(now)
		fmt.Fprintf(&b, ", backlog %s rows (lag %s)", count(n), lag.Round(time.Millisecond))
	}
	if frac > 0.001 {
		eta := time.Duration(el * (1 - frac) / frac * float64(time.Second)).Round(time.Second)
		fmt.Fprintf(&b, ", ETA %s", eta)
	}
	io.WriteString(r.cfg.Stderr, b.String())
}

// rate and count format figures as the summary does.
func rate(v float64) string { return summary.Rate(v) }
func count(n int64) string  { return summary.Count(n) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeResults writes res as indented JSON to path (atomically: a
// temporary file renamed into place).
func writeResults(path string, res *results.Results) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".results-*.json")
	if err != nil {
		return err
	}
	// CreateTemp makes the file 0600; results hold no secret (redacted)
	// and are read like the dataset files beside them.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// checkResultsPath fails when the results file could not be written at
// the end of the run (its directory missing or not writable), so that a
// typo in the path costs nothing rather than the whole load's results.
func checkResultsPath(path string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".results-*.json")
	if err != nil {
		// Named by the user's path and directory, not the probe's temporary
		// file (issue 43 item 15).
		reason := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
		if st, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			reason = fmt.Errorf("directory %s does not exist (create it first)", dir)
		} else if serr == nil && !st.IsDir() {
			reason = fmt.Errorf("%s is not a directory", dir)
		} else if errors.Is(err, fs.ErrPermission) {
			reason = fmt.Errorf("directory %s is not writable", dir)
		}
		return fmt.Errorf("results file %s cannot be written (checked before loading): %w", path, reason)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}
