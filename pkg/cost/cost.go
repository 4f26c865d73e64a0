// Package cost measures what a load costs: the server's CPU, memory and
// I/O sampled from /proc while it loads (when the server runs on this
// machine), the loader's own CPU and peak memory, and the storage the
// loaded tables take (the target's own accounting, or the server's data
// directory), waiting for it to settle. The load engine starts a Meter at
// the first batch, asks it for each reporting period's figures, and for
// results.Cost at the end.
package cost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/interference"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/periodic"
	"github.com/tsload/tsload/pkg/procstat"
	"github.com/tsload/tsload/pkg/results"
)

// Config says how a run measures what the load cost: the storage it
// took (load.Target.Footprint) and the server's resources (/proc, when the
// server runs on this machine).
type Config struct {
	// ServerPID is the server's process; 0: the process listening on the
	// target's port (load.Target.ServerAddr) when the server is local.
	ServerPID int
	// ServerDataDir is the server's data directory: its size is recorded
	// beside the database's own accounting, and replaces it when the
	// target has none.
	ServerDataDir string
	// FootprintSettle bounds the wait, after the load (and verification),
	// for the footprint to stop changing; 0 measures it once, right after
	// the last batch.
	FootprintSettle time.Duration
	// Proc is the proc file system read (the zero FS reads /proc).
	Proc procstat.FS
}

// Bounds of the cost measurement (variables so tests can shorten them).
var (
	// SampleEvery is the sampling interval of the server's RSS (peak
	// and mean), at most the reporting period.
	SampleEvery = 2 * time.Second
	// footprintTimeout bounds one footprint query.
	footprintTimeout = 30 * time.Second
	// flushTimeout bounds the flush before settling (load.Hooks.FlushStorage).
	flushTimeout = 2 * time.Minute
)

// Meter measures one run's costs: a sampler goroutine from the first
// batch to the end of the load, the period's figures, the footprint after
// it. The zero Meter has not started.
type Meter struct {
	cfg         Config
	mu          sync.Mutex
	started     bool
	pid         int
	method      string
	notMeasured string
	note        string
	first, last procstat.Usage // at the start and the latest sample
	prev        procstat.Usage // at the last period's end
	rssSum      float64
	samples     int
	rssPeak     int64
	procs       int
	ioMissing   bool
	dead        bool // the process ended: figures up to its last sample

	selfCPU0 time.Duration
	selfErr  error
	stop     func() // ends the sampling: periodic.Every's answer
	stopped  bool

	// win is the machine's CPU from Start to Stop, for interference.
	win       interference.Window
	t0        time.Time
	remote    string // the server is on another machine: why it is not observed
	afterLoad *results.Footprint
	afterErr  error
	refresh   time.Duration // the footprint's load.Size.Refresh
}

// Start starts measuring at the first batch: finds the server's process
// (serverAddr: the target's, "" when it does not say; doLoad false:
// nothing is sent to a server) and samples it every period at most, until
// Stop.
func (c *Meter) Start(cfg Config, doLoad bool, serverAddr string, period time.Duration) {
	c.cfg = cfg
	fsys := cfg.Proc
	c.selfCPU0, _, c.selfErr = fsys.Self()
	c.win.Start, c.t0 = interference.Take(fsys), time.Now()
	c.started = true
	if !doLoad {
		c.notMeasured = "nothing sent to a server"
		return
	}
	var remote bool
	c.pid, c.method, c.notMeasured, remote = cfg.findServer(serverAddr)
	if c.notMeasured != "" {
		if remote {
			c.remote = c.notMeasured + ": its machine is not observed"
		} else if serverAddr != "" {
			c.win.ServerUnobserved = c.notMeasured
		}
		return
	}
	u, err := fsys.Tree(c.pid)
	if err != nil {
		c.notMeasured = fmt.Sprintf("pid %d: %v", c.pid, err)
		return
	}
	c.win.ServerIsLoader = c.pid == os.Getpid()
	c.first, c.last, c.prev = u, u, u
	c.add(u)
	c.stop = periodic.Every(min(SampleEvery, period), func() { c.sample(fsys) })
}

// Started reports whether Start was called.
func (c *Meter) Started() bool { return c.started }

// Stop takes the last sample, at the end of the load.
func (c *Meter) Stop() {
	if !c.started || c.stopped {
		return
	}
	c.stopped = true
	if c.stop != nil {
		c.stop()
		c.stop = nil
		c.sample(c.cfg.Proc)
	}
	c.win.End, c.win.Wall = interference.Take(c.cfg.Proc), time.Since(c.t0)
	if cpu, _, err := c.cfg.Proc.Self(); err == nil && c.selfErr == nil {
		c.win.Loader = cpu - c.selfCPU0
	}
	c.mu.Lock()
	if c.notMeasured == "" {
		c.win.Server = max(0, c.last.CPU()-c.first.CPU())
	}
	c.mu.Unlock()
}

// Interference is what else ran on the machine from Start to Stop (nil
// before Stop).
func (c *Meter) Interference() *results.Interference {
	if !c.stopped {
		return nil
	}
	in := interference.Judge(c.win)
	if c.remote != "" && in.NotMeasured == "" {
		in.Unobserved = c.remote
	}
	return in
}

// sample reads the server's tree once.
func (c *Meter) sample(fsys procstat.FS) procstat.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return c.last
	}
	u, err := fsys.Tree(c.pid)
	if err != nil {
		c.dead = true
		c.note = fmt.Sprintf("pid %d could not be read after %d samples (%v): figures up to then", c.pid, c.samples, err)
		return c.last
	}
	c.add(u)
	return u
}

// add records sample u; c.mu held (or not yet shared).
func (c *Meter) add(u procstat.Usage) {
	c.last = u
	c.samples++
	c.rssSum += float64(u.RSS)
	c.rssPeak = max(c.rssPeak, u.RSS)
	c.procs = max(c.procs, u.Procs)
	if !u.IO {
		c.ioMissing = true
	}
}

// Period is the server's use in the period ending now (nil when not
// measured).
func (c *Meter) Period() *results.PeriodServer {
	if !c.started || c.notMeasured != "" {
		return nil
	}
	u := c.sample(c.cfg.Proc)
	c.mu.Lock()
	defer c.mu.Unlock()
	p := &results.PeriodServer{
		CPUSeconds: max(0, (u.CPU() - c.prev.CPU()).Seconds()),
		RSSBytes:   u.RSS,
		ReadBytes:  max(0, u.ReadBytes-c.prev.ReadBytes),
		WriteBytes: max(0, u.WriteBytes-c.prev.WriteBytes),
	}
	c.prev = u
	return p
}

// findServer returns the server's pid and how it was found, or why it
// is not measured.
//
// remote says the server runs on another machine (then this machine's
// CPU holds none of its work).
func (cfg Config) findServer(addr string) (pid int, method, notMeasured string, remote bool) {
	if p := cfg.ServerPID; p > 0 {
		return p, fmt.Sprintf("/proc: pid %d (given) and its children", p), "", false
	}
	if addr == "" {
		return 0, "", "the target does not say where its server is", false
	}
	host, portStr, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portStr)
	if err != nil || perr != nil {
		return 0, "", fmt.Sprintf("server address %q has no port", addr), false
	}
	if !localHost(host) {
		return 0, "", fmt.Sprintf("remote server %s", addr), true
	}
	pid, err = cfg.Proc.ListeningPID(port)
	if errors.Is(err, procstat.ErrNotListening) {
		return 0, "", fmt.Sprintf("remote server: no process on this machine listens on port %d (another network namespace or container?)", port), true
	}
	if err != nil {
		return 0, "", err.Error(), false
	}
	return pid, fmt.Sprintf("/proc: pid %d listening on port %d, and its children", pid, port), "", false
}

// localHost reports whether host names this machine: a loopback or
// unspecified address, localhost, or an address of one of its interfaces.
func localHost(host string) bool {
	if host == "" || host == "localhost" {
		return true
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return false
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	ifaddrs, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		for _, a := range ifaddrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// Storage is how the loaded tables' size is asked: the target's own
// accounting (load.Target.Footprint; nil: none) and its flush
// (load.Hooks.FlushStorage; nil: none).
type Storage struct {
	Footprint func(ctx context.Context, tables []string) (load.Size, error)
	Flush     func(ctx context.Context, tables []string) (string, error)
}

// footprint measures the loaded tables' size: the target's own accounting,
// else the data directory's size.
func (c *Meter) footprint(ctx context.Context, st Storage, tables []string) (load.Size, error) {
	if st.Footprint != nil {
		fctx, cancel := context.WithTimeout(ctx, footprintTimeout)
		size, err := st.Footprint(fctx, tables)
		cancel()
		if !errors.Is(err, errors.ErrUnsupported) {
			return size, err
		}
	}
	if d := c.cfg.ServerDataDir; d != "" {
		n, err := dirSize(d)
		return load.Size{Bytes: n, Method: "data directory " + d + " (whole server, file sizes)"}, err
	}
	return load.Size{}, errNoFootprint
}

var errNoFootprint = errors.New("the target has no storage accounting and no server data directory was given")

// AfterLoad measures the footprint of tables (sorted) right after the
// load, before verification. The engine does not call it when the load
// failed: the server may be gone, its size would cost a timeout and mean
// nothing.
func (c *Meter) AfterLoad(ctx context.Context, st Storage, tables []string) {
	sz, err := c.footprint(ctx, st, tables)
	fp := &results.Footprint{Tables: tables, Method: sz.Method, AfterLoadBytes: sz.Bytes, SettledBytes: sz.Bytes, Mark: sz.Mark, DataBytes: sz.DataBytes}
	c.afterLoad, c.afterErr, c.refresh = fp, err, sz.Refresh
}

// Loader is the loader's own cost over the load of rows rows.
func (c *Meter) Loader(rows int64) results.LoaderCost {
	cpu, peak, err := c.cfg.Proc.Self()
	if err == nil {
		err = c.selfErr
	}
	if err != nil {
		return results.LoaderCost{NotMeasured: "no /proc: " + err.Error()}
	}
	lc := results.LoaderCost{CPUSeconds: (cpu - c.selfCPU0).Seconds(), RSSPeakBytes: peak}
	if rows > 0 {
		lc.CPUSecondsPerMRows = lc.CPUSeconds / float64(rows) * 1e6
	}
	return lc
}

// Server is the server's cost over the load of rows rows.
func (c *Meter) Server(rows int64) *results.ServerCost {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notMeasured != "" {
		return &results.ServerCost{NotMeasured: c.notMeasured}
	}
	sc := &results.ServerCost{
		PID: c.pid, Method: c.method, Procs: c.procs, Samples: c.samples, Note: c.note,
		CPUSeconds:    max(0, (c.last.CPU() - c.first.CPU()).Seconds()),
		UserSeconds:   max(0, (c.last.User - c.first.User).Seconds()),
		SystemSeconds: max(0, (c.last.System - c.first.System).Seconds()),
		RSSPeakBytes:  c.rssPeak,
		ReadBytes:     max(0, c.last.ReadBytes-c.first.ReadBytes),
		WriteBytes:    max(0, c.last.WriteBytes-c.first.WriteBytes),
	}
	if c.samples > 0 {
		sc.RSSMeanBytes = int64(c.rssSum / float64(c.samples))
	}
	if c.ioMissing {
		sc.Note = joinNote(sc.Note, "some processes' /proc/<pid>/io was not readable (another user's): their I/O is not counted")
	}
	if rows > 0 {
		sc.CPUSecondsPerMRows = sc.CPUSeconds / float64(rows) * 1e6
		sc.WriteBytesPerMRows = float64(sc.WriteBytes) / float64(rows) * 1e6
	}
	return sc
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Settle waits (bounded by Config.FootprintSettle) until two successive
// sizes agree, and computes the per-row figures with ratios. Without a
// size after the load (AfterLoad not called), it says unmeasured why not.
func (c *Meter) Settle(ctx context.Context, st Storage, unmeasured string, ratios func(*results.Footprint)) *results.Footprint {
	fp, err := c.afterLoad, c.afterErr
	if fp == nil {
		return &results.Footprint{NotMeasured: unmeasured}
	}
	if errors.Is(err, errNoFootprint) {
		return &results.Footprint{NotMeasured: err.Error()}
	}
	flusher := st.Flush != nil
	d := c.cfg.FootprintSettle
	if err != nil && (!flusher || d == 0) {
		why := "the size query failed"
		if flusher && d == 0 {
			why += settleHint(flusher, d) // the rows may all be in its cache
		}
		return &results.Footprint{NotMeasured: why, Error: err.Error(), Method: fp.Method}
	}
	// measured: some size was read (after the load, or while settling:
	// a server that counts flushed files only may have none before the
	// flush).
	measured := err == nil
	if err != nil {
		fp.Note = "right after the load: " + err.Error()
	}
	if d > 0 {
		if flusher {
			// Its own bound: a compaction on a busy server can take longer
			// than the settle wait that follows it.
			fctx, cancel := context.WithTimeout(ctx, flushTimeout)
			what, err := st.Flush(fctx, fp.Tables)
			cancel()
			fp.Flush = what
			if err != nil {
				fp.Note = joinNote(fp.Note, "flushing failed: "+err.Error())
			} else if fp.Mark == results.MarkLowerBound {
				fp.Mark = "" // the rows the size left out are in its files now
			}
		}
		every := min(max(d/10, 200*time.Millisecond), 2*time.Second)
		// Settled: unchanged over two polls, and over longer than the
		// server takes to recompute the figure.
		quiet := max(2*every, c.refresh+every)
		prev, since := fp.AfterLoadBytes, time.Now()
		t0 := time.Now() // d bounds the wait after the flush
		for time.Since(t0) < d && time.Since(since) < quiet && ctx.Err() == nil {
			select {
			case <-time.After(every):
			case <-ctx.Done():
			}
			sz, err := c.footprint(ctx, st, fp.Tables)
			if err != nil {
				fp.Note = joinNote(fp.Note, "a size query while settling failed: "+err.Error())
				break
			}
			if sz.Bytes != prev || !measured {
				prev, since = sz.Bytes, time.Now()
			}
			if fp.Mark != "" || sz.Mark != results.MarkLowerBound {
				fp.Mark = sz.Mark
			}
			fp.DataBytes = sz.DataBytes
			measured = true
		}
		if !measured {
			return &results.Footprint{NotMeasured: "the size query failed", Error: err.Error(), Method: fp.Method, Flush: fp.Flush, Note: fp.Note}
		}
		fp.SettledBytes, fp.Settled = prev, time.Since(since) >= quiet
		fp.SettleSeconds = time.Since(t0).Seconds()
		if !fp.Settled {
			fp.Note = joinNote(fp.Note, fmt.Sprintf("the size still changed after %s: the figures are of the last size read", d))
		}
	}
	if d := c.cfg.ServerDataDir; d != "" {
		if n, err := dirSize(d); err == nil {
			fp.DataDirBytes = n
		} else {
			fp.Note = joinNote(fp.Note, "data directory: "+err.Error())
		}
	}
	ratios(fp)
	if fp.SettledBytes == 0 && fp.Rows > 0 {
		// Not a size: the rows are somewhere the accounting does not see
		// yet (a cache, a WAL, files the server has not written).
		return &results.Footprint{NotMeasured: fmt.Sprintf("the database reported 0 bytes for %d rows (not yet in the files it counts)%s", fp.Rows, settleHint(flusher, d)),
			Method: fp.Method, Flush: fp.Flush, Note: fp.Note}
	}
	return fp
}

// settleHint says how to measure a size the database did not give right
// after the load: wait for it (and flush first, when the target can).
func settleHint(flusher bool, d time.Duration) string {
	switch {
	case d > 0:
		return ""
	case flusher:
		return "; --footprint-settle 30s flushes the server's cache to its files and waits for the size"
	}
	return "; --footprint-settle 30s waits for the size"
}

// dirSize sums the sizes of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking (a compacted file)
			}
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}
