package cnosdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// Fault injection through internal/faultproxy in front of the CnosDB
// stand-in (internal/cnosdbtest), the whole path (runner.Run, this
// target). Retryable faults must end with the exact count verified (a
// re-sent row merges with itself: same series and time); non-retryable
// ones with an error naming the cause and a results file marked failed
// whose rows equal what the server holds. The stand-in keeps its data in
// memory, so "server restarted" is played by the proxy: open connections
// cut and new ones refused for a while (TestFaultUnreachable).

// faultFile writes rows of cpu with a unique (host, time) per row.
func faultFile(t *testing.T, rows int, edit func(i int, line string) string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < rows; i++ {
		line := fmt.Sprintf("cpu,hostname=host_%d usage_user=%d.5,usage_idle=%di %d\n", i%10, i, i%100, 1600000000000000000+int64(i/10)*1e9)
		if edit != nil {
			line = edit(i, line)
		}
		b.WriteString(line)
	}
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type faultRun struct {
	loadtest.Run
}

// runFault loads path through a proxy to s.
func runFault(t *testing.T, s *cnosdbtest.Server, p *faultproxy.Proxy, path string, timeout time.Duration, batch, workers int) faultRun {
	t.Helper()
	base := s.URL
	if p != nil {
		base = "http://" + p.Addr()
	}
	tg := newTarget(t, s, func(c *Config) {
		c.URLs = []string{base}
		c.Gzip = true
		c.RequestTimeout = timeout
	})
	cfg := runnerConfig(path, nil)
	cfg.BatchSize, cfg.Workers, cfg.RetryTimeout = batch, workers, 60*time.Second
	return faultRun{loadtest.RunLoad(t, cfg, tg)}
}

func newProxy(t *testing.T, s *cnosdbtest.Server) *faultproxy.Proxy {
	t.Helper()
	return loadtest.Proxy(t, strings.TrimPrefix(s.URL, "http://"))
}

func (f faultRun) exact(t *testing.T, s *cnosdbtest.Server, rows int64) {
	t.Helper()
	f.Exact(t, rows)
	if n := s.Rows("bench", "cpu"); n != rows {
		t.Fatalf("server holds %d rows, want %d", n, rows)
	}
}

// failed checks a run that must have failed naming want, with the results
// file counting exactly the rows the server holds.
func (f faultRun) failed(t *testing.T, s *cnosdbtest.Server, want string) load.Results {
	t.Helper()
	if f.Err == nil || !strings.Contains(f.Err.Error(), want) {
		t.Fatalf("err = %v, want one naming %q\n%s", f.Err, want, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	held := max(s.Rows("bench", "cpu"), 0)
	if r.Status != load.StatusFailed || !strings.Contains(r.Error, want) || r.Rows != held {
		t.Fatalf("results: status %q rows %d error %q; the server holds %d", r.Status, r.Rows, r.Error, held)
	}
	return r
}

// TestFaultCutMidBatch cuts the next connections after 2 KiB of request,
// then every open connection, mid-load.
func TestFaultCutMidBatch(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	p := newProxy(t, s)
	path := faultFile(t, 30000, nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if !loadtest.AfterBytes(p, 20<<10, stop) {
			return
		}
		p.CutAfter(2<<10, 6)
		p.CutAll()
		if loadtest.AfterBytes(p, 100<<10, stop) {
			p.CutAll()
		}
	}()
	f := runFault(t, s, p, path, 10*time.Second, 700, 3)
	f.exact(t, s, 30000)
	if st := p.Stats(); st.Cuts < 6 || f.Res.Retries == 0 {
		t.Errorf("cuts %d retries %d", st.Cuts, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

// TestFaultUnreachable: the server goes away three times (connections cut,
// new ones refused for 300 ms), as across a restart.
func TestFaultUnreachable(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	p := newProxy(t, s)
	p.SetLatency(time.Millisecond)
	path := faultFile(t, 30000, nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := int64(1); i <= 3; i++ {
			if !loadtest.AfterBytes(p, i*40<<10, stop) {
				return
			}
			p.Refuse(true)
			p.CutAll()
			time.Sleep(300 * time.Millisecond)
			p.Refuse(false)
		}
	}()
	f := runFault(t, s, p, path, 10*time.Second, 700, 3)
	f.exact(t, s, 30000)
	if st := p.Stats(); st.Refused == 0 || f.Res.Retries == 0 {
		t.Errorf("refused %d retries %d", st.Refused, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

// TestFaultStall stalls the server for 2.5 s, past the 700 ms request
// timeout; the stalled requests may land afterwards and merge with their
// re-sends.
func TestFaultStall(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	p := newProxy(t, s)
	p.SetLatency(time.Millisecond)
	path := faultFile(t, 20000, nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if !loadtest.AfterBytes(p, 30<<10, stop) {
			return
		}
		p.Stall(true)
		time.Sleep(2500 * time.Millisecond)
		p.Stall(false)
	}()
	f := runFault(t, s, p, path, 700*time.Millisecond, 500, 2)
	f.exact(t, s, 20000)
	if f.Res.Retries == 0 || !strings.Contains(f.Log, "deadline exceeded") {
		t.Errorf("retries %d; no timeout reported:\n%s", f.Res.Retries, f.Log)
	}
}

// TestFaultMemoryPressure: bursts of 422 Memory Exhausted Retry Later
// while the load runs.
func TestFaultMemoryPressure(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	p := newProxy(t, s)
	p.SetLatency(time.Millisecond)
	path := faultFile(t, 30000, nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := int64(1); i <= 4; i++ {
			if !loadtest.AfterBytes(p, i*30<<10, stop) {
				return
			}
			s.MemoryExhausted(4)
		}
	}()
	f := runFault(t, s, p, path, 10*time.Second, 700, 3)
	f.exact(t, s, 30000)
	if f.Res.Retries < 4 || !strings.Contains(f.Log, cnosdbtest.MemoryExhaustedMsg) {
		t.Errorf("retries %d\n%s", f.Res.Retries, f.Log)
	}
	t.Logf("%d re-sends", f.Res.Retries)
}

// TestFaultBadLine: the server refuses a whole batch (422 040004) in the
// middle of the input; the run stops, counting the batches before it.
func TestFaultBadLine(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	path := faultFile(t, 5000, func(i int, line string) string {
		if i == 2345 {
			return "cpu,hostname=x usage_user=oops 1\n"
		}
		return line
	})
	f := runFault(t, s, nil, path, 10*time.Second, 500, 1)
	r := f.failed(t, s, "040004")
	if r.Rows != 2000 || r.Retries != 0 {
		t.Fatalf("rows %d retries %d, want 2000 and 0", r.Rows, r.Retries)
	}
}

// dropAfterPrepare drops the database right after Prepare: every write
// gets 422 database not found.
type dropAfterPrepare struct{ *Target }

func (d dropAfterPrepare) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if err := d.Target.Prepare(ctx, opts); err != nil {
		return err
	}
	_, err := d.SQL(ctx, "", "DROP DATABASE IF EXISTS "+ident(opts.DBName))
	return err
}

// TestFaultDatabaseNotFound: 422 database not found is not retried.
func TestFaultDatabaseNotFound(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	path := faultFile(t, 3000, nil)
	tg := newTarget(t, s, nil)
	f := faultRun{loadtest.RunLoad(t, runnerConfig(path, nil), dropAfterPrepare{tg})}
	r := f.failed(t, s, "Database not found")
	if r.Rows != 0 || r.Retries != 0 {
		t.Fatalf("rows %d retries %d", r.Rows, r.Retries)
	}
}
