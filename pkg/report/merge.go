package report

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/results"
)

// Merged is the combined summary of the per-shard results of one scaled-out
// load. It encodes as a results.Results document (so every report subcommand
// reads it) with an extra "merge" object.
type Merged struct {
	results.Results
	Merge MergeInfo `json:"merge"`

	contentFailed bool // a shard's content verification failed
}

// MergeInfo describes how shards were combined.
type MergeInfo struct {
	Shards int      `json:"shards"`
	Files  []string `json:"files"`
	// The aggregate rate is Rows / (latest End − earliest Start): the whole
	// wall-clock window in which any shard was loading (Results.RowsPerSec).
	WindowSeconds float64 `json:"window_seconds"`
	// The overlap window is [latest Start, earliest End], when every shard
	// was loading at once; its rate counts, from each shard's reporting
	// periods, the rows written inside it (periods cut by the window count
	// in proportion). Zero when the shards did not overlap.
	OverlapStart      time.Time `json:"overlap_start"`
	OverlapEnd        time.Time `json:"overlap_end"`
	OverlapSeconds    float64   `json:"overlap_seconds"`
	OverlapRows       float64   `json:"overlap_rows"`
	OverlapRowsPerSec float64   `json:"overlap_rows_per_sec"`
	// Latency percentiles cannot be merged from summaries: the merged p50,
	// p90, p99 and max are the largest of any shard (an upper bound), the
	// mean is weighted by batches.
	LatencyNote string `json:"latency_note"`
	// How the verification counts were combined.
	VerifyNote string `json:"verify_note,omitempty"`
	// SetupNote says why Setup is left out: the shards' set-ups differ
	// (each shard's file has its own).
	SetupNote string `json:"setup_note,omitempty"`
	// PaceNote says that paced shards' schedules are not merged.
	PaceNote string `json:"pace_note,omitempty"`
}

// MergeRuns combines the results of shards that loaded disjoint parts of
// one dataset at the same time. Counts are summed; the rate is the summed
// rows over the common wall-clock window; the status is failed when any
// shard is not ok. Workers is the total across shards; BatchSize is kept
// when all shards agree, else 0.
func MergeRuns(runs []Run) (*Merged, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no shard results to merge")
	}
	m := &Merged{}
	out := &m.Results
	first := runs[0]
	out.SchemaVersion = results.SchemaVersion
	out.Loader, out.Target, out.Format = first.Loader, first.Target, first.Format
	out.BatchSize = first.BatchSize
	out.Flags = map[string]any{}
	out.Status = results.StatusOK
	var errs []string
	var latWeighted float64
	loaders, targets := map[string]bool{}, map[string]bool{}
	for i, r := range runs {
		if r.Start.IsZero() || r.End.Before(r.Start) {
			return nil, fmt.Errorf("%s: start %s / end %s is not a loading window", r.Path, r.Start.Format(time.RFC3339Nano), r.End.Format(time.RFC3339Nano))
		}
		m.Merge.Files = append(m.Merge.Files, r.Path)
		loaders[r.Loader], targets[r.Target] = true, true
		if r.Status != results.StatusOK {
			out.Status = results.StatusFailed
			msg := r.Error
			if msg == "" {
				msg = "status " + r.Status
			}
			errs = append(errs, fmt.Sprintf("shard %d (%s): %s", i, r.Path, msg))
		}
		if i == 0 || r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if i == 0 || r.End.After(out.End) {
			out.End = r.End
		}
		if r.BatchSize != out.BatchSize {
			out.BatchSize = 0
		}
		out.Workers += r.Workers
		out.Inputs = append(out.Inputs, r.Inputs...)
		out.Rows += r.Rows
		out.Metrics += r.Metrics
		out.Batches += r.Batches
		out.Bytes += r.Bytes
		out.RowsRead += r.RowsRead
		out.Retries += r.Retries
		out.Errors += r.Errors
		out.RejectedRows += r.RejectedRows
		out.SkippedRecords += r.SkippedRecords
		latWeighted += r.Latency.Mean * float64(r.Batches)
		out.Latency.P50 = math.Max(out.Latency.P50, r.Latency.P50)
		out.Latency.P90 = math.Max(out.Latency.P90, r.Latency.P90)
		out.Latency.P99 = math.Max(out.Latency.P99, r.Latency.P99)
		out.Latency.Max = math.Max(out.Latency.Max, r.Latency.Max)
	}
	if len(loaders) > 1 || len(targets) > 1 {
		return nil, fmt.Errorf("shards of different loaders or targets: %s / %s", strings.Join(keys(loaders), ","), strings.Join(keys(targets), ","))
	}
	if out.Batches > 0 {
		out.Latency.Mean = latWeighted / float64(out.Batches)
	}
	out.Error = strings.Join(errs, "; ")
	out.Flags["shards"] = len(runs)
	out.Seconds = out.End.Sub(out.Start).Seconds()
	if out.Seconds > 0 {
		out.RowsPerSec = float64(out.Rows) / out.Seconds
		out.MetricsPerSec = float64(out.Metrics) / out.Seconds
	}
	m.Merge.Shards = len(runs)
	m.Merge.WindowSeconds = out.Seconds
	m.Merge.LatencyNote = "p50/p90/p99/max: largest of any shard (upper bound); mean: weighted by batches"

	out.Environment = mergeEnvironment(runs)
	m.mergeSetup(runs)
	m.overlap(runs)
	out.Periods = mergePeriods(runs, out.Start)
	m.mergeVerify(runs)
	if out.Verify != nil && !out.Verify.OK && out.Status == results.StatusOK {
		out.Status = results.StatusFailed
		out.Error = "merged verification: database count differs from the rows acknowledged"
		if m.contentFailed {
			out.Error = "merged verification: a shard's content verification failed"
		}
	}
	return m, nil
}

// mergeEnvironment describes the shards together: a fact they all share is
// kept, one that differs reads "differs between shards" (each shard's file
// has its own); the dataset is the whole when the shards are generate_data
// shards of one dataset (rows and bytes summed, no shard), else what the
// loaders read, summed.
func mergeEnvironment(runs []Run) *results.Environment {
	var envs []*results.Environment
	for _, r := range runs {
		if r.Environment == nil {
			return nil
		}
		envs = append(envs, r.Environment)
	}
	const differs = "differs between shards"
	out := *envs[0]
	same := func(f func(e *results.Environment) string) bool {
		for _, e := range envs[1:] {
			if f(e) != f(envs[0]) {
				return false
			}
		}
		return true
	}
	if !same(func(e *results.Environment) string { return e.Server.Version + "\x00" + e.Server.Error }) {
		out.Server = results.Server{Error: differs}
	}
	if !same(func(e *results.Environment) string { return fmt.Sprintf("%+v", e.Machine) }) {
		out.Machine = envinfo.Machine{OS: differs}
	}
	if !same(func(e *results.Environment) string { return e.Tsload }) {
		out.Tsload = differs
	}
	whole := same(func(e *results.Environment) string {
		d := e.Dataset
		d.Shard, d.Rows, d.Bytes, d.FileBytes, d.Note = "", 0, 0, 0, ""
		return fmt.Sprintf("%+v %v", d, derefSeed(d.Seed))
	}) && envs[0].Dataset.Source == "generate_data"
	d := out.Dataset
	if !whole {
		d = envinfo.Dataset{Source: "input", Format: d.Format, Compression: d.Compression}
	}
	d.Shard, d.Rows, d.Bytes, d.FileBytes, d.Note = "", 0, 0, 0, ""
	for _, e := range envs {
		d.Rows += e.Dataset.Rows
		d.Bytes += e.Dataset.Bytes
		d.FileBytes += e.Dataset.FileBytes
	}
	out.Dataset = d
	return &out
}

func derefSeed(p *uint64) any {
	if p == nil {
		return nil
	}
	return *p
}

func keys(m map[string]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// overlap fills the overlap window and the rows written inside it.
func (m *Merged) overlap(runs []Run) {
	start, end := runs[0].Start, runs[0].End
	for _, r := range runs[1:] {
		if r.Start.After(start) {
			start = r.Start
		}
		if r.End.Before(end) {
			end = r.End
		}
	}
	if !end.After(start) {
		return
	}
	m.Merge.OverlapStart, m.Merge.OverlapEnd = start, end
	m.Merge.OverlapSeconds = end.Sub(start).Seconds()
	var rows float64
	for _, r := range runs {
		for _, p := range r.Periods {
			pEnd := r.Start.Add(secondsDur(p.At))
			pStart := pEnd.Add(-secondsDur(p.Seconds))
			rows += float64(p.Rows) * fractionInside(pStart, pEnd, start, end)
		}
	}
	m.Merge.OverlapRows = rows
	m.Merge.OverlapRowsPerSec = rows / m.Merge.OverlapSeconds
}

func secondsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// fractionInside is the share of [a, b] that lies in [lo, hi]; a zero-length
// interval counts wholly when it lies inside.
func fractionInside(a, b, lo, hi time.Time) float64 {
	if !b.After(a) {
		if !a.Before(lo) && !a.After(hi) {
			return 1
		}
		return 0
	}
	s, e := a, b
	if lo.After(s) {
		s = lo
	}
	if hi.Before(e) {
		e = hi
	}
	if !e.After(s) {
		return 0
	}
	return e.Sub(s).Seconds() / b.Sub(a).Seconds()
}

// mergePeriods rebins every shard's periods onto one timeline from start,
// with the shortest period length of any shard; a shard period cut by a
// bin boundary is shared in proportion to time.
func mergePeriods(runs []Run, start time.Time) []results.Period {
	width := 0.0
	end := 0.0
	for _, r := range runs {
		for _, p := range r.Periods {
			if p.Seconds > 0 && (width == 0 || p.Seconds < width) {
				width = p.Seconds
			}
			if at := r.Start.Sub(start).Seconds() + p.At; at > end {
				end = at
			}
		}
	}
	if width == 0 || end <= 0 {
		return nil
	}
	n := int(math.Ceil(end/width - 1e-9))
	if n > 1_000_000 {
		return nil
	}
	rows := make([]float64, n)
	metrics := make([]float64, n)
	batches := make([]float64, n)
	for _, r := range runs {
		off := r.Start.Sub(start).Seconds()
		for _, p := range r.Periods {
			pe := off + p.At
			ps := pe - p.Seconds
			first := int(math.Floor(ps / width))
			if first < 0 {
				first = 0
			}
			for b := first; b < n && float64(b)*width < pe+1e-12; b++ {
				bs, be := float64(b)*width, float64(b+1)*width
				var f float64
				if p.Seconds <= 0 {
					if ps >= bs && ps < be {
						f = 1
					}
				} else {
					lo, hi := math.Max(ps, bs), math.Min(pe, be)
					if hi > lo {
						f = (hi - lo) / p.Seconds
					}
				}
				rows[b] += f * float64(p.Rows)
				metrics[b] += f * float64(p.Metrics)
				batches[b] += f * float64(p.Batches)
			}
		}
	}
	out := make([]results.Period, n)
	var total int64
	for b := range out {
		length := width
		if b == n-1 {
			length = end - float64(b)*width
		}
		r := int64(math.Round(rows[b]))
		total += r
		out[b] = results.Period{
			At: float64(b)*width + length, Seconds: length,
			Rows: r, Metrics: int64(math.Round(metrics[b])), Batches: int64(math.Round(batches[b])),
			RowsPerSec: rows[b] / length, MetricsPerSec: metrics[b] / length,
			TotalRows: total,
		}
	}
	return out
}

// mergeVerify combines the shards' verification. Expected counts are summed
// per table. When the shards loaded distinct databases (different --db-name)
// the actual counts are summed too; when they shared one database, each
// shard counted the whole table, so the largest count (taken last) is used.
func (m *Merged) mergeVerify(runs []Run) {
	dbs := map[string]bool{}
	var missing []string
	for _, r := range runs {
		if r.Verify == nil {
			missing = append(missing, r.Path)
		}
		dbs[flagValue(r.Flags["db-name"])] = true
	}
	if len(missing) == len(runs) {
		return
	}
	if len(missing) > 0 {
		m.Merge.VerifyNote = "not merged: no verification in " + strings.Join(missing, ", ")
		return
	}
	v := &results.Verification{OK: true, Expected: map[string]int64{}, Actual: map[string]int64{}}
	separate := len(dbs) == len(runs)
	if separate {
		m.Merge.VerifyNote = "shards loaded distinct databases: expected and actual counts summed"
	} else {
		m.Merge.VerifyNote = "shards shared a database: expected counts summed, actual is the largest count any shard saw"
	}
	for _, r := range runs {
		v.Seconds = math.Max(v.Seconds, r.Verify.Seconds)
		for t, n := range r.Verify.Expected {
			v.Expected[t] += n
		}
		for t, n := range r.Verify.Actual {
			if separate {
				v.Actual[t] += n
			} else if n > v.Actual[t] {
				v.Actual[t] = n
			}
		}
	}
	for t, n := range v.Expected {
		if v.Actual[t] != n {
			v.OK = false
		}
	}
	for t, n := range v.Actual {
		if _, ok := v.Expected[t]; !ok && n != 0 {
			v.OK = false
		}
	}
	// Content fingerprints are per shard and cannot be added up: the merged
	// verification is of counts, and says how each shard's content went.
	v.Mode = "count"
	var content, contentOK int
	for _, r := range runs {
		if r.Verify.Mode == "content" {
			content++
			if r.Verify.OK {
				contentOK++
			}
		}
	}
	if content > 0 {
		m.Merge.VerifyNote += fmt.Sprintf("; content (--verify content) verified by each shard of its own rows: %d of %d shards OK", contentOK, content)
		if content < len(runs) {
			m.Merge.VerifyNote += fmt.Sprintf(", %d shards verified counts only", len(runs)-content)
		}
		if contentOK < content {
			v.OK, m.contentFailed = false, true
		}
	}
	v.Note = m.Merge.VerifyNote
	m.Results.Verify = v
}

// mergeSetup keeps the shards' set-up when they all had the same one
// (where the load went, what the target made of each table), and says
// why it is left out otherwise. Paced shards' schedules are not merged.
func (m *Merged) mergeSetup(runs []Run) {
	same := true
	for _, r := range runs[1:] {
		if !reflect.DeepEqual(r.Setup, runs[0].Setup) {
			same = false
		}
	}
	if same {
		m.Results.Setup = runs[0].Setup
	} else {
		m.Merge.SetupNote = "the shards' set-ups differ (see each shard's file)"
	}
	for _, r := range runs {
		if r.Pace != nil {
			m.Merge.PaceNote = "paced shards: each shard's schedule and latency from due are in its own file"
			break
		}
	}
}
