package runner

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/cost"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/procstat"
	"github.com/tsload/tsload/pkg/results"
)

// costTarget is the fake with a server address and a storage accounting.
type costTarget struct {
	*fakeTarget
	addr  string
	mu    sync.Mutex
	sizes []int64 // successive Footprint answers; the last repeats
	calls int
	err   error
	mark  string // the Size's Mark
	data  int64  // the Size's DataBytes
}

func (c *costTarget) ServerAddr() string { return c.addr }

func (c *costTarget) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return load.Size{}, c.err
	}
	i := min(c.calls, len(c.sizes)-1)
	c.calls++
	return load.Size{Bytes: c.sizes[i], Method: "fake accounting", Mark: c.mark, DataBytes: c.data}, nil
}

var fixedProc = procstat.FS{Root: "../procstat/testdata/proc", PageSize: 4096}

// TestCostFixedProc finds the server from the target's port in a fixed
// /proc tree and reports its tree's figures; the footprint settles.
func TestCostFixedProc(t *testing.T) {
	path, _ := ilpInput(t, 3000)
	ct := &costTarget{fakeTarget: newFake(), addr: "127.0.0.1:5432", sizes: []int64{1000, 5000, 6000, 6000}}
	cfg := baseConfig(path)
	cfg.Cost = cost.Config{Proc: fixedProc, FootprintSettle: 5 * time.Second}
	res, err := Run(context.Background(), cfg, ct)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Cost.Server
	if s == nil || s.NotMeasured != "" || s.PID != 100 || s.Procs != 3 || s.RSSPeakBytes != 41500*4096 || s.RSSMeanBytes != 41500*4096 {
		t.Fatalf("server %+v", s)
	}
	// A fixed tree spends nothing; one process has no io file.
	if s.CPUSeconds != 0 || !strings.Contains(s.Note, "io was not readable") || !strings.Contains(s.Method, "listening on port 5432") {
		t.Errorf("server %+v", s)
	}
	fp := res.Cost.Footprint
	if fp == nil || fp.AfterLoadBytes != 1000 || fp.SettledBytes != 6000 || !fp.Settled || fp.Method != "fake accounting" {
		t.Fatalf("footprint %+v", fp)
	}
	if fp.Rows != 3000 || fp.BytesPerRow != 2 || fp.BytesPerMetric != 1 || fp.InputRatio != 6000/float64(res.Bytes) {
		t.Errorf("footprint ratios %+v (input %d bytes)", fp, res.Bytes)
	}
	// The loader's own: the fixed tree's self (pid 300).
	if res.Cost.Loader.RSSPeakBytes != 45000*1024 {
		t.Errorf("loader %+v", res.Cost.Loader)
	}
	out := cfg.Stderr.(interface{ String() string }).String()
	for _, want := range []string{"footprint: 0.0 MB after the load, 0.0 MB after", "(settled) [fake accounting]: 2.0 bytes/row", "server: 0.00 CPU-s", "loader: 0.00 CPU-s"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestCostRemote: a server elsewhere is "not measured", and so is a
// footprint the database would not give; the run passes.
func TestCostRemote(t *testing.T) {
	path, _ := ilpInput(t, 100)
	ct := &costTarget{fakeTarget: newFake(), addr: "192.0.2.7:8086", err: errors.New("permission denied for function")}
	res, err := Run(context.Background(), baseConfig(path), ct)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Cost.Server; s == nil || s.NotMeasured != "remote server 192.0.2.7:8086" || s.CPUSeconds != 0 {
		t.Errorf("server %+v", s)
	}
	if fp := res.Cost.Footprint; fp == nil || fp.NotMeasured != "the size query failed" || fp.Error != "permission denied for function" || fp.AfterLoadBytes != 0 {
		t.Errorf("footprint %+v", fp)
	}
	out := res.Cost.Server.NotMeasured
	if !strings.Contains(baseStderr(t, baseConfig(path), ct), "server: not measured (remote server 192.0.2.7:8086)") {
		t.Errorf("summary: %s", out)
	}
	// A target that says nothing about its server or size.
	res, err = Run(context.Background(), baseConfig(path), newFake())
	if err != nil {
		t.Fatal(err)
	}
	if res.Cost.Server.NotMeasured == "" || res.Cost.Footprint.NotMeasured == "" || res.Cost.Loader.NotMeasured != "" {
		t.Errorf("cost %+v %+v", res.Cost.Server, res.Cost.Footprint)
	}
}

func baseStderr(t *testing.T, cfg Config, tg load.Target) string {
	t.Helper()
	if _, err := Run(context.Background(), cfg, tg); err != nil {
		t.Fatal(err)
	}
	return cfg.Stderr.(interface{ String() string }).String()
}

// startBurner starts a child that holds 64 MiB and spins on a core.
func startBurner(t *testing.T) *exec.Cmd {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for a child that burns CPU")
	}
	cmd := exec.Command("python3", "-c", `
b = bytearray(64 << 20)
for i in range(0, len(b), 4096): b[i] = 1
print("ready", flush=True)
while True: pass
`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestCostServerPID samples a process the test started (ServerPID) and
// checks its CPU and RSS against what /proc says around the run.
func TestCostServerPID(t *testing.T) {
	cmd := startBurner(t)
	pid := cmd.Process.Pid
	path, _ := ilpInput(t, 20000)
	f := newFake()
	f.delay = 60 * time.Millisecond // 20 batches over 3 workers: about 0.4 s
	cfg := baseConfig(path)
	cfg.ReportingPeriod = 100 * time.Millisecond
	cfg.Cost = cost.Config{ServerPID: pid}
	var fsys procstat.FS
	before, err := fsys.Tree(pid)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	after, err := fsys.Tree(pid)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Cost.Server
	if s == nil || s.NotMeasured != "" || s.PID != pid || s.Samples < 3 {
		t.Fatalf("server %+v", s)
	}
	// The load lies within the two readings; the child spins all along.
	if limit := (after.CPU() - before.CPU()).Seconds(); s.CPUSeconds <= 0 || s.CPUSeconds > limit+0.011 {
		t.Errorf("server CPU %.3fs, /proc says %.3fs around the run", s.CPUSeconds, limit)
	}
	if s.RSSPeakBytes < 64<<20 || float64(s.RSSPeakBytes) > 1.1*float64(max(before.RSS, after.RSS)) || s.RSSMeanBytes > s.RSSPeakBytes {
		t.Errorf("server RSS peak %d mean %d, /proc says %d then %d", s.RSSPeakBytes, s.RSSMeanBytes, before.RSS, after.RSS)
	}
	var sum float64
	n := 0
	for _, p := range res.Periods {
		if p.Server != nil {
			sum += p.Server.CPUSeconds
			n++
			if p.Server.RSSBytes < 64<<20 {
				t.Errorf("period RSS %d", p.Server.RSSBytes)
			}
		}
	}
	if n < 2 || sum > s.CPUSeconds+0.011 || sum < s.CPUSeconds/2 {
		t.Errorf("%d periods with %.3f CPU-s in all, server total %.3f", n, sum, s.CPUSeconds)
	}
	if l := res.Cost.Loader; l.NotMeasured != "" || l.RSSPeakBytes <= 0 || l.CPUSeconds < 0 {
		t.Errorf("loader %+v", l)
	}
}

// flushTarget counts flushed files only: no size before FlushStorage.
type flushTarget struct {
	*costTarget
	flushed bool
}

func (f *flushTarget) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	if !f.flushed {
		return load.Size{Method: "fake files", Mark: f.mark}, errors.New("no rows in files yet")
	}
	return load.Size{Bytes: 4200, Method: "fake files", Mark: f.mark}, nil
}

func (f *flushTarget) Hooks() load.Hooks { return load.Hooks{FlushStorage: f.FlushStorage} }

func (f *flushTarget) FlushStorage(context.Context, []string) (string, error) {
	f.flushed = true
	return "FLUSH", nil
}

// TestCostFlush: a size the server has only after a flush is measured
// once the settle wait has flushed it; without the wait it is not
// measured.
func TestCostFlush(t *testing.T) {
	path, _ := ilpInput(t, 1000)
	ft := &flushTarget{costTarget: &costTarget{fakeTarget: newFake(), addr: "192.0.2.7:1"}}
	cfg := baseConfig(path)
	res, err := Run(context.Background(), cfg, ft)
	if err != nil {
		t.Fatal(err)
	}
	if fp := res.Cost.Footprint; fp.NotMeasured != "the size query failed; --footprint-settle 30s flushes the server's cache to its files and waits for the size" || fp.Error != "no rows in files yet" {
		t.Errorf("without a settle wait: %+v", fp)
	}
	cfg.Cost.FootprintSettle = 3 * time.Second
	ft = &flushTarget{costTarget: &costTarget{fakeTarget: newFake(), addr: "192.0.2.7:1"}}
	res, err = Run(context.Background(), cfg, ft)
	if err != nil {
		t.Fatal(err)
	}
	if fp := res.Cost.Footprint; fp.NotMeasured != "" || fp.Flush != "FLUSH" || fp.SettledBytes != 4200 || !fp.Settled || fp.BytesPerRow != 4.2 ||
		!strings.Contains(fp.Note, "right after the load: no rows in files yet") {
		t.Errorf("with a settle wait: %+v", fp)
	}
}

// After a resume the tables hold every run's rows: bytes per metric
// divides by every run's metrics, as bytes per row by every run's rows
// (not by this run's).
func TestResumedFootprintUsesTheWholeLoad(t *testing.T) {
	in, _ := ilpInput(t, 20_000)
	dir := t.TempDir()
	ct := &costTarget{fakeTarget: newFake(), sizes: []int64{80_000}}
	ct.fail = failAt(9)
	if _, err := Run(context.Background(), resumeConfig(dir, in), ct); err == nil {
		t.Fatal("the load did not stop at refused batch 9")
	}
	ct.mu.Lock()
	ct.fail = nil
	ct.mu.Unlock()
	res, err := Run(context.Background(), resumeFrom(t, resumeConfig(dir, in)), ct)
	if err != nil {
		t.Fatal(err)
	}
	fp := res.Cost.Footprint
	if res.Rows >= 20_000 || res.Resume == nil || res.Resume.SkippedRows == 0 {
		t.Fatalf("the resumed run loaded %d rows, resume %+v: nothing was resumed", res.Rows, res.Resume)
	}
	if fp == nil || fp.Rows != 20_000 || fp.Metrics != 40_000 || fp.BytesPerRow != 4 || fp.BytesPerMetric != 2 {
		t.Fatalf("footprint %+v (this run: %d rows, %d metrics)", fp, res.Rows, res.Metrics)
	}
}

// A footprint is a measurement of the rows' storage or it says what it is:
// 0 bytes for loaded rows is "not measured" with the flag that measures
// it, never 0.0 bytes/row; a preallocated size carries its mark and the
// data's own size; a lower bound stops being one once the cache is
// flushed.
func TestFootprintMarks(t *testing.T) {
	path, _ := ilpInput(t, 1000)
	run := func(tg load.Target, settle time.Duration) (*results.Footprint, string) {
		t.Helper()
		cfg := baseConfig(path)
		cfg.Cost.FootprintSettle = settle
		res, err := Run(context.Background(), cfg, tg)
		if err != nil {
			t.Fatal(err)
		}
		return res.Cost.Footprint, cfg.Stderr.(interface{ String() string }).String()
	}
	fp, out := run(&costTarget{fakeTarget: newFake(), sizes: []int64{0}}, 0)
	if fp.NotMeasured != "the database reported 0 bytes for 1000 rows (not yet in the files it counts); --footprint-settle 30s waits for the size" || fp.BytesPerRow != 0 {
		t.Errorf("0 bytes: %+v", fp)
	}
	if !strings.Contains(out, "footprint: not measured (the database reported 0 bytes") || strings.Contains(out, "0.0 bytes/row") {
		t.Errorf("0 bytes, summary:\n%s", out)
	}
	fp, out = run(&costTarget{fakeTarget: newFake(), sizes: []int64{64 << 20}, mark: results.MarkPreallocated, data: 30_000}, 0)
	if fp.NotMeasured != "" || fp.Mark != results.MarkPreallocated || fp.DataBytes != 30_000 {
		t.Errorf("preallocated: %+v", fp)
	}
	if !strings.Contains(out, "[fake accounting] (includes preallocation; the data itself 0.0 MB): 67108.9 bytes/row") {
		t.Errorf("preallocated, summary:\n%s", out)
	}
	fp, _ = run(&costTarget{fakeTarget: newFake(), sizes: []int64{5000}, mark: results.MarkLowerBound}, 0)
	if fp.Mark != results.MarkLowerBound {
		t.Errorf("cache not flushed: %+v", fp)
	}
	ft := &flushTarget{costTarget: &costTarget{fakeTarget: newFake(), mark: results.MarkLowerBound}}
	fp, _ = run(ft, 2*time.Second)
	if fp.NotMeasured != "" || fp.Mark != "" || fp.SettledBytes != 4200 {
		t.Errorf("flushed: %+v", fp)
	}
}
