package summary

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/results"
)

// Options are what the summary says that the results do not record.
type Options struct {
	// DoLoad false: the rows were read, not loaded.
	DoLoad bool
	// MaxBatchBytes is the size at which the splitter cut a batch short
	// of its rows (split.DefaultMaxBatchBytes).
	MaxBatchBytes int
}

// Write prints the end-of-run summary of res; the rows of a run that
// did not load (DoLoad false) were "read", not "loaded".
func Write(w io.Writer, res *results.Results, o Options) {
	verb := "loaded"
	if !o.DoLoad {
		verb = "read"
	}
	fmt.Fprintf(w, "%s %s rows (%s metrics) in %s batches in %.3fs: %s\n",
		verb, Count(res.Rows), Count(res.Metrics), Count(res.Batches), res.Seconds, res.Status)
	fmt.Fprintf(w, "mean rate: %s rows/s, %s metrics/s (%s rows read, %.1f MB)\n",
		Rate(res.RowsPerSec), Rate(res.MetricsPerSec), Count(res.RowsRead), float64(res.Bytes)/1e6)
	if res.Cost != nil && res.Cost.Interference != nil {
		fmt.Fprintln(w, Interference(res.Cost.Interference))
	}
	if res.SetupSeconds > 0 || res.FinishSeconds > 0 {
		fmt.Fprintf(w, "set-up %.3fs before the load (not in its time); finish %.3fs after the last batch (in its time)\n",
			res.SetupSeconds, res.FinishSeconds)
	}
	if len(res.TargetReport) > 0 {
		fmt.Fprint(w, "target:")
		for _, k := range sortedKeys(res.TargetReport) {
			if v := res.TargetReport[k]; v == float64(int64(v)) {
				fmt.Fprintf(w, " %s %d", k, int64(v))
			} else {
				fmt.Fprintf(w, " %s %.3f", k, v)
			}
		}
		fmt.Fprintln(w)
	}
	if res.BatchesCapped > 0 {
		fmt.Fprintf(w, "batch size: %s batches were cut at %d MiB before --batch-size %s rows: at most %s rows per batch (batch_size_effective in the results)\n",
			Count(res.BatchesCapped), o.MaxBatchBytes>>20, Count(int64(res.BatchSize)), Count(int64(res.BatchSizeEffective)))
	}
	l := res.Latency
	fmt.Fprintf(w, "batch latency ms: mean %.2f p50 %.2f p90 %.2f p99 %.2f max %.2f\n", l.Mean, l.P50, l.P90, l.P99, l.Max)
	Pace(w, res.Pace)
	Loop(w, res.Loop)
	Queries(w, res.Queries)
	fmt.Fprintf(w, "retries %d, errors %d, rejected rows %d, skipped records %d\n",
		res.Retries, res.Errors, res.RejectedRows, res.SkippedRecords)
	Cost(w, res.Cost)
	if v := res.Verify; v != nil && len(v.Actual) == 0 && v.Note != "" {
		fmt.Fprintf(w, "verify FAILED: %s\n", v.Note)
	} else if v != nil {
		status := "OK"
		if !v.OK {
			status = "MISMATCH"
		}
		fmt.Fprintf(w, "verify %s in %.2fs:", status, v.Seconds)
		for _, n := range sortedKeys(v.Expected) {
			fmt.Fprintf(w, " %s %d/%d", n, v.Actual[n], v.Expected[n])
		}
		fmt.Fprintln(w)
		if v.Note != "" {
			fmt.Fprintf(w, "verify note: %s\n", v.Note)
		}
		content(w, v)
	}
}

// content prints the content verification's lines of the summary.
func content(w io.Writer, v *results.Verification) {
	if v.Mode != "content" {
		return
	}
	fields, notes := 0, 0
	for _, c := range v.Content {
		fields += c.Fields
		notes += len(c.Notes)
		for _, m := range c.Mismatches {
			fmt.Fprintf(w, "verify content MISMATCH: %s\n", m)
		}
		for _, n := range c.Notes {
			fmt.Fprintf(w, "verify content note: %s\n", n)
		}
	}
	status := "OK"
	if !v.OK {
		status = "MISMATCH"
	}
	fmt.Fprintf(w, "verify content %s: %d tables, %d fields (rows, series, time range, per field count and sum)\n", status, len(v.Content), fields)
}

// Cost prints the cost lines of the summary.
func Cost(w io.Writer, c *results.Cost) {
	if c == nil {
		return
	}
	if fp := c.Footprint; fp != nil {
		switch {
		case fp.NotMeasured != "" && fp.Error != "":
			fmt.Fprintf(w, "footprint: not measured (%s: %s)\n", fp.NotMeasured, fp.Error)
		case fp.NotMeasured != "":
			fmt.Fprintf(w, "footprint: not measured (%s)\n", fp.NotMeasured)
		default:
			fmt.Fprintf(w, "footprint: %s after the load", mb(fp.AfterLoadBytes))
			if fp.SettleSeconds > 0 {
				state := "settled"
				if !fp.Settled {
					state = "still changing"
				}
				fmt.Fprintf(w, ", %s after %.1fs (%s)", mb(fp.SettledBytes), fp.SettleSeconds, state)
			}
			fmt.Fprintf(w, " [%s]", fp.Method)
			if fp.Mark != "" {
				fmt.Fprintf(w, " (%s", fp.Mark)
				if fp.DataBytes > 0 {
					fmt.Fprintf(w, "; the data itself %s", mb(fp.DataBytes))
				}
				fmt.Fprint(w, ")")
			}
			fmt.Fprintf(w, ": %.1f bytes/row", fp.BytesPerRow)
			if fp.BytesPerMetric > 0 {
				fmt.Fprintf(w, ", %.2f bytes/metric", fp.BytesPerMetric)
			}
			if fp.InputRatio > 0 {
				fmt.Fprintf(w, ", %.3fx the input", fp.InputRatio)
			}
			if fp.CompressedInputRatio > 0 {
				fmt.Fprintf(w, " (%.3fx the compressed file)", fp.CompressedInputRatio)
			}
			fmt.Fprintln(w)
			if fp.Note != "" {
				fmt.Fprintf(w, "footprint note: %s\n", fp.Note)
			}
		}
	}
	if s := c.Server; s != nil {
		if s.NotMeasured != "" {
			fmt.Fprintf(w, "server: not measured (%s)\n", s.NotMeasured)
		} else {
			fmt.Fprintf(w, "server: %.2f CPU-s (%.2f per million rows), RSS peak %s mean %s, read %s written %s [%s, %d processes]\n",
				s.CPUSeconds, s.CPUSecondsPerMRows, mb(s.RSSPeakBytes), mb(s.RSSMeanBytes), mb(s.ReadBytes), mb(s.WriteBytes), s.Method, s.Procs)
			if s.Note != "" {
				fmt.Fprintf(w, "server note: %s\n", s.Note)
			}
		}
	}
	if l := c.Loader; l.NotMeasured != "" {
		fmt.Fprintf(w, "loader: not measured (%s)\n", l.NotMeasured)
	} else {
		fmt.Fprintf(w, "loader: %.2f CPU-s during the load, peak RSS %s\n", l.CPUSeconds, mb(l.RSSPeakBytes))
	}
}

// mb formats a size in megabytes.
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// Loop is the summary's line of a long run.
func Loop(w io.Writer, lp *results.Loop) {
	if lp == nil {
		return
	}
	s := "ran to the end of the input"
	if lp.Stopped {
		s = fmt.Sprintf("stopped reading at %s", time.Duration(lp.Duration*float64(time.Second)))
	}
	if lp.Replay {
		s = fmt.Sprintf("loop: %d passes, each shifted by %d %s from the last; %s", lp.Passes, lp.Span, lp.Unit, s)
	} else {
		s = "duration: " + s
	}
	fmt.Fprintln(w, s)
}

// Serialization prints s in the shape of the pandas benchmark.
func Serialization(w io.Writer, s *results.Serialization) {
	fmt.Fprintf(w, "serialized: %12.0f rows/s %10.2f MiB/s  (read and split only, no database)\n", s.SerializedRowsPerSec, s.SerializedMiBPerSec)
	fmt.Fprintf(w, "sent:       %12.0f rows/s %10.2f MiB/s  (acknowledged by the server)\n", s.SentRowsPerSec, s.SentMiBPerSec)
}

// Where prints where the load went: the server's address, database
// and tables, and the server's version.
func Where(w io.Writer, target string, s *results.Setup, server results.Server) {
	if s == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "into %s", target)
	if s.URL != "" {
		fmt.Fprintf(&b, " at %s", s.URL)
	}
	if s.API != "" {
		fmt.Fprintf(&b, " (%s)", s.API)
	}
	if s.Database != "" {
		fmt.Fprintf(&b, ", database %s", s.Database)
	}
	if len(s.Tables) > 0 {
		names := make([]string, len(s.Tables))
		for i, t := range s.Tables {
			names[i] = t.Name
		}
		sort.Strings(names)
		fmt.Fprintf(&b, ", tables %s", strings.Join(names, ", "))
	}
	switch {
	case server.Version != "":
		fmt.Fprintf(&b, "; server %s", server.Version)
	case server.Error != "":
		fmt.Fprintf(&b, "; server version unknown (%s)", server.Error)
	}
	if len(s.Settings) > 0 {
		b.WriteString("; ")
		for i, k := range sortedKeys(s.Settings) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %v", k, s.Settings[k])
		}
	}
	fmt.Fprintln(w, b.String())
}

// Queries is the summary's lines of a query load.
func Queries(w io.Writer, q *results.Queries) {
	if q == nil {
		return
	}
	fmt.Fprintf(w, "queries: %s/s offered on %d connections (%s): %s due, %s dropped (backlog full; at most %d of %d waited)\n",
		Rate(q.Rate), q.Workers, q.Mix, Count(q.Issued), Count(q.Dropped), q.MaxBacklog, q.BacklogCap)
	for _, t := range append(q.Types, q.All) {
		l := t.LatencyFromDue
		fmt.Fprintf(w, "  %-22s %6d answered, %d rows, %d errors, %d unsupported; checked %d, wrong %d; ms from due p50 %.2f p99 %.2f max %.2f\n",
			t.Name, t.Count, t.Rows, t.Errors, t.Unsupported, t.Checked, t.Wrong, l.P50, l.P99, l.Max)
	}
	if q.Note != "" {
		fmt.Fprintf(w, "queries: %s\n", q.Note)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Interference is the summary's one line about what else ran on the
// machine during the load: "machine quiet: ..." or "DISTURBED: ...".
func Interference(in *results.Interference) string {
	if in.NotMeasured != "" {
		return "interference not measured: " + in.NotMeasured
	}
	s := fmt.Sprintf("interference %.2f cores (machine %.2f, loader %.2f, server %.2f of %d CPUs), steal %.1f%%, load average %.2f -> %.2f",
		in.Cores, in.MachineCores, in.LoaderCores, in.ServerCores, in.CPUs, 100*in.StealFraction, in.LoadAvgStart, in.LoadAvgEnd)
	if in.Unobserved != "" {
		s += "; not observed: " + in.Unobserved
	}
	if in.Disturbed {
		return "DISTURBED: other work ran on the machine (" + in.Reason + "); the figures above are not the database's alone: " + s
	}
	return "machine quiet: " + s
}
