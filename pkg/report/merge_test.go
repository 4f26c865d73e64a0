package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/results"
)

// shard is a run that starts off seconds after t0 and loads rate rows/s
// for secs seconds in 1-second periods.
func shard(path string, off, secs float64, rate int64, db string) Run {
	start := t0.Add(secondsDur(off))
	r := &results.Results{
		Loader: "load_x", Target: "x", Status: results.StatusOK, Format: "ilp",
		Flags: map[string]any{"db-name": db}, Inputs: []string{path + ".ilp"},
		Start: start, End: start.Add(secondsDur(secs)), Seconds: secs,
		BatchSize: 1000, Workers: 2,
		Latency: results.LatencySummary{Mean: off + 1, P50: off + 1, P90: off + 2, P99: off + 3, Max: off + 4},
	}
	for at := 1.0; at <= secs+1e-9; at++ {
		r.Rows += rate
		r.Periods = append(r.Periods, results.Period{At: at, Seconds: 1, Rows: rate, Metrics: rate * 10, Batches: rate / 1000,
			RowsPerSec: float64(rate), MetricsPerSec: float64(rate * 10), TotalRows: r.Rows})
	}
	r.Metrics, r.Batches, r.RowsRead = r.Rows*10, r.Rows/1000, r.Rows
	r.RowsPerSec = float64(r.Rows) / secs
	r.MetricsPerSec = float64(r.Metrics) / secs
	r.Verify = &results.Verification{OK: true, Expected: map[string]int64{"cpu": r.Rows}, Actual: map[string]int64{"cpu": r.Rows}}
	return Run{Path: path, Results: r}
}

func TestMergeRuns(t *testing.T) {
	// Shards 0..2 start 0, 1 and 2 s after t0 and run 10, 10 and 6 s.
	runs := []Run{
		shard("s0", 0, 10, 1000, "b0"),
		shard("s1", 1, 10, 2000, "b1"),
		shard("s2", 2, 6, 3000, "b2"),
	}
	m, err := MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Results
	wantRows := int64(10*1000 + 10*2000 + 6*3000)
	if r.Rows != wantRows || r.Metrics != wantRows*10 || r.Batches != wantRows/1000 {
		t.Errorf("rows %d metrics %d batches %d", r.Rows, r.Metrics, r.Batches)
	}
	if !r.Start.Equal(t0) || !r.End.Equal(t0.Add(11*time.Second)) || r.Seconds != 11 {
		t.Errorf("window %v..%v (%v s)", r.Start, r.End, r.Seconds)
	}
	if math.Abs(r.RowsPerSec-float64(wantRows)/11) > 1e-9 {
		t.Errorf("rate %v, want %v", r.RowsPerSec, float64(wantRows)/11)
	}
	if r.Status != results.StatusOK || r.Workers != 6 || r.BatchSize != 1000 || len(r.Inputs) != 3 {
		t.Errorf("status %s workers %d batch %d inputs %v", r.Status, r.Workers, r.BatchSize, r.Inputs)
	}
	// Overlap: [2 s, 8 s] after t0, all three shards loading.
	if m.Merge.OverlapSeconds != 6 || !m.Merge.OverlapStart.Equal(t0.Add(2*time.Second)) {
		t.Errorf("overlap %v s from %v", m.Merge.OverlapSeconds, m.Merge.OverlapStart)
	}
	if want := 6.0 * (1000 + 2000 + 3000); math.Abs(m.Merge.OverlapRows-want) > 1e-6 || math.Abs(m.Merge.OverlapRowsPerSec-6000) > 1e-6 {
		t.Errorf("overlap rows %v (%v/s), want %v (6000/s)", m.Merge.OverlapRows, m.Merge.OverlapRowsPerSec, want)
	}
	// Merged periods: 11 one-second bins that add up to every row.
	if len(r.Periods) != 11 || r.Periods[10].TotalRows != wantRows {
		t.Fatalf("%d periods, total %d", len(r.Periods), r.Periods[len(r.Periods)-1].TotalRows)
	}
	if p := r.Periods[4]; p.Rows != 6000 || p.RowsPerSec != 6000 || p.At != 5 {
		t.Errorf("period 5: %+v", p)
	}
	if r.Periods[0].Rows != 1000 || r.Periods[10].Rows != 2000 {
		t.Errorf("edge periods %d, %d", r.Periods[0].Rows, r.Periods[10].Rows)
	}
	if r.Latency.P99 != 5 || r.Latency.Max != 6 {
		t.Errorf("latency %+v: want the largest shard p99/max", r.Latency)
	}
	// Distinct databases: counts summed.
	if r.Verify == nil || !r.Verify.OK || r.Verify.Actual["cpu"] != wantRows || r.Verify.Expected["cpu"] != wantRows {
		t.Errorf("verify %+v", r.Verify)
	}
}

func TestMergeRunsSharedDatabase(t *testing.T) {
	runs := []Run{shard("s0", 0, 4, 1000, "bench"), shard("s1", 0, 4, 1000, "bench")}
	// Sharing a table, the shard that finished last counted both shares.
	runs[0].Verify.Actual["cpu"] = 6000
	runs[1].Verify.Actual["cpu"] = 8000
	m, err := MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Verify; v == nil || !v.OK || v.Actual["cpu"] != 8000 || !strings.Contains(v.Note, "shared") {
		t.Errorf("verify %+v", v)
	}
	runs[1].Verify.Actual["cpu"] = 7999
	m, _ = MergeRuns(runs)
	if m.Verify.OK || m.Status != results.StatusFailed {
		t.Errorf("short count accepted: %+v, status %s", m.Verify, m.Status)
	}
	runs[1].Verify = nil
	m, _ = MergeRuns(runs)
	if m.Verify != nil || !strings.Contains(m.Merge.VerifyNote, "s1") {
		t.Errorf("partial verification merged: %+v %q", m.Verify, m.Merge.VerifyNote)
	}
}

func TestMergeRunsFailedShard(t *testing.T) {
	runs := []Run{shard("s0", 0, 4, 1000, "a"), shard("s1", 0, 4, 1000, "b"), shard("s2", 0, 4, 1000, "c")}
	runs[1].Status, runs[1].Error = results.StatusFailed, "write batch 3: connection reset"
	runs[2].Status = results.StatusInterrupted
	m, err := MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != results.StatusFailed || !strings.Contains(m.Error, "shard 1 (s1): write batch 3") || !strings.Contains(m.Error, "shard 2 (s2): status interrupted") {
		t.Errorf("status %s error %q", m.Status, m.Error)
	}
}

func TestMergeRunsErrors(t *testing.T) {
	a, b := shard("a", 0, 2, 10, "x"), shard("b", 0, 2, 10, "y")
	b.Target = "other"
	if _, err := MergeRuns([]Run{a, b}); err == nil {
		t.Error("merged different targets")
	}
	if _, err := MergeRuns(nil); err == nil {
		t.Error("merged nothing")
	}
	c := shard("c", 0, 2, 10, "z")
	c.Start = time.Time{}
	if _, err := MergeRuns([]Run{a, c}); err == nil || !strings.Contains(err.Error(), "c: start") {
		t.Errorf("zero start: %v", err)
	}
	// Shards that never ran at the same time have no overlap window.
	d := shard("d", 100, 2, 10, "w")
	m, err := MergeRuns([]Run{a, d})
	if err != nil || m.Merge.OverlapSeconds != 0 || m.Seconds != 102 {
		t.Errorf("disjoint shards: %v, %+v", err, m.Merge)
	}
}

// RunMerge's output is itself a results document that the table reads.
func TestRunMergeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, r := range []Run{shard("s0", 0, 3, 1000, "a"), shard("s1", 0.5, 3, 1000, "b")} {
		b, _ := json.Marshal(r.Results)
		f := filepath.Join(dir, "shard"+string(rune('0'+i))+".json")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var out bytes.Buffer
	if err := RunMerge(MergeConfig{Files: files, Out: &out}); err != nil {
		t.Fatal(err)
	}
	var back Merged
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Rows != 6000 || back.Merge.Shards != 2 || back.Merge.OverlapSeconds != 2.5 {
		t.Errorf("merged %+v", back.Merge)
	}
	merged := filepath.Join(dir, "merged.json")
	os.WriteFile(merged, out.Bytes(), 0o644)
	var tab bytes.Buffer
	if err := RunTable(TableConfig{Files: []string{merged}, Group: []string{"target"}, Out: &tab}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "| x | 1 | 1,714 |") { // 6000 rows / 3.5 s
		t.Errorf("table of the merged file:\n%s", tab.String())
	}
}

// Shards of one generated dataset merge into the whole dataset; a fact that
// differs between shards says so instead of showing one shard's.
func TestMergeEnvironment(t *testing.T) {
	seed := uint64(1)
	env := func(shard string, rows int64, host string) *results.Environment {
		return &results.Environment{
			Server:  results.Server{Version: "InfluxDB 1.6.7"},
			Machine: envinfo.Machine{CPUModel: host, Cores: 2},
			Tsload:  "tsload (devel) go1.26",
			Dataset: envinfo.Dataset{Source: "generate_data", UseCase: "cpu-only", Scale: 100, Seed: &seed, Shard: shard,
				Rows: rows, Bytes: rows * 100, FileBytes: rows * 10, Format: "ilp", Compression: "gzip level 1"},
		}
	}
	a, b := shard("s0.json", 0, 4, 1000, "db"), shard("s1.json", 1, 4, 1000, "db")
	a.Environment, b.Environment = env("0/2", 400, "pod-a"), env("1/2", 600, "pod-a")
	m, err := MergeRuns([]Run{a, b})
	if err != nil {
		t.Fatal(err)
	}
	e := m.Environment
	if e == nil || e.Dataset.Shard != "" || e.Dataset.Rows != 1000 || e.Dataset.Bytes != 100000 || e.Dataset.UseCase != "cpu-only" ||
		e.Server.Version != "InfluxDB 1.6.7" || e.Machine.CPUModel != "pod-a" {
		t.Fatalf("merged environment %+v", e)
	}
	b.Environment = env("1/2", 600, "pod-b")
	b.Environment.Dataset.Scale = 200 // not the same dataset
	m, _ = MergeRuns([]Run{a, b})
	if e := m.Environment; e.Machine.OS != "differs between shards" || e.Dataset.Source != "input" || e.Dataset.UseCase != "" || e.Dataset.Rows != 1000 {
		t.Fatalf("merged environment of different shards %+v", e)
	}
	b.Environment = nil
	if m, _ = MergeRuns([]Run{a, b}); m.Environment != nil {
		t.Error("a shard without environment: the merge claims one")
	}
}

// TestMergeRunsContentAndSetup: shards that verified their content are
// merged as a count verification that says how each shard's content went
// (one failed shard fails the merge); a set-up all shards share is kept,
// one that differs is left out with a note; paced shards say so.
func TestMergeRunsContentAndSetup(t *testing.T) {
	runs := []Run{shard("s0", 0, 4, 1000, "b0"), shard("s1", 0, 4, 1000, "b1")}
	setup := &results.Setup{Database: "b0"}
	for _, r := range runs {
		r.Verify.Mode = "content"
		r.Setup = setup
	}
	m, err := MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Verify; !v.OK || v.Mode != "count" || !strings.Contains(v.Note, "2 of 2 shards OK") || m.Setup != setup || m.Merge.SetupNote != "" {
		t.Fatalf("verify %+v setup %+v note %q", v, m.Setup, m.Merge.SetupNote)
	}
	runs[1].Verify.OK = false // its counts matched; its content did not
	runs[1].Setup = &results.Setup{Database: "b1"}
	runs[1].Pace = &results.Pace{}
	m, _ = MergeRuns(runs)
	if m.Verify.OK || m.Status != results.StatusFailed || !strings.Contains(m.Error, "content verification failed") ||
		!strings.Contains(m.Verify.Note, "1 of 2 shards OK") || m.Setup != nil || m.Merge.SetupNote == "" || m.Merge.PaceNote == "" {
		t.Fatalf("status %s error %q verify %+v setup %+v merge %+v", m.Status, m.Error, m.Verify, m.Setup, m.Merge)
	}
}
