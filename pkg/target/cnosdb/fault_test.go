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

// Faults on the whole path (runner.Run, this target) against the real
// CnosDB, through internal/faultproxy where the network misbehaves, and
// against a CnosDB of the test's own where the server is killed. Retryable
// faults must end with the exact count verified (a re-sent row merges with
// itself: same series and time); non-retryable ones with an error naming
// the cause and a results file marked failed whose rows equal what the
// server holds. Only memory pressure comes from the stand-in.

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
	tg *Target
}

// runFault loads path into tg's database through base (a proxy's URL, or
// "" for tg's own URL).
func runFault(t *testing.T, tg *Target, base, path string, timeout time.Duration, batch, workers int) faultRun {
	t.Helper()
	cfg := tg.cfg
	if base != "" {
		cfg.URLs = []string{base}
	}
	cfg.Gzip, cfg.RequestTimeout = true, timeout
	through, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer through.Close()
	rc := loadtest.FaultConfig(path, batch, workers)
	rc.Prepare = load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true}
	rc.Loader, rc.Target = "load_cnosdb", "cnosdb"
	return faultRun{loadtest.RunLoad(t, rc, through), tg}
}

func proxyTo(t *testing.T, tg *Target) (*faultproxy.Proxy, string) {
	t.Helper()
	p := loadtest.Proxy(t, tg.cfg.URLs[0])
	return p, "http://" + p.Addr()
}

func (f faultRun) exact(t *testing.T, rows int64) {
	t.Helper()
	f.Exact(t, rows)
	if n := count(t, f.tg, "cpu"); n != rows {
		t.Fatalf("server holds %d rows, want %d", n, rows)
	}
}

// failed checks a run that must have failed naming want, with the results
// file counting exactly the rows the server holds.
func (f faultRun) failed(t *testing.T, want string) load.Results {
	t.Helper()
	if f.Err == nil || !strings.Contains(f.Err.Error(), want) {
		t.Fatalf("err = %v, want one naming %q\n%s", f.Err, want, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	held := count(t, f.tg, "cpu")
	if r.Status != load.StatusFailed || !strings.Contains(r.Error, want) || r.Rows != held {
		t.Fatalf("results: status %q rows %d error %q; the server holds %d", r.Status, r.Rows, r.Error, held)
	}
	return r
}

// TestFaultCutMidBatch cuts the next connections after 2 KiB of request,
// then every open connection, mid-load.
func TestFaultCutMidBatch(t *testing.T) {
	tg := realTarget(t, nil)
	p, base := proxyTo(t, tg)
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
	f := runFault(t, tg, base, path, 10*time.Second, 700, 3)
	f.exact(t, 30000)
	if st := p.Stats(); st.Cuts < 6 || f.Res.Retries == 0 {
		t.Errorf("cuts %d retries %d", st.Cuts, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

// TestFaultUnreachable: the network to the server goes away three times
// (connections cut, new ones refused for 300 ms).
func TestFaultUnreachable(t *testing.T) {
	tg := realTarget(t, nil)
	p, base := proxyTo(t, tg)
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
	f := runFault(t, tg, base, path, 10*time.Second, 700, 3)
	f.exact(t, 30000)
	if st := p.Stats(); st.Refused == 0 || f.Res.Retries == 0 {
		t.Errorf("refused %d retries %d", st.Refused, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

// TestFaultKillRestart kills a CnosDB of the test's own with SIGKILL
// mid-load and starts it again: the load re-sends what was not
// acknowledged and ends with every row counted once.
func TestFaultKillRestart(t *testing.T) {
	cnosdbtest.RealURL(t) // the same skip rule as the shared server
	in := cnosdbtest.StartInstance(t, "kill", cnosdbtest.InstanceOptions{})
	cfg := Config{URLs: []string{in.URL}, Tenant: "cnosdb", User: "root", Precision: "ns", DBName: "kill", GzipLevel: 1}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	// The proxy only watches the bytes, to kill the server mid-load.
	p, base := proxyTo(t, tg)
	const rows = 300000
	path := faultFile(t, rows, nil)
	stop := make(chan struct{})
	killed := make(chan error, 1)
	go func() {
		if !loadtest.AfterBytes(p, 256<<10, stop) {
			killed <- fmt.Errorf("the load ended before the server was killed (%d bytes sent)", p.Stats().UpstreamBytes)
			return
		}
		if err := in.Kill(); err != nil {
			killed <- err
			return
		}
		time.Sleep(500 * time.Millisecond)
		killed <- in.Start()
	}()
	f := runFault(t, tg, base, path, 10*time.Second, 1000, 2)
	close(stop)
	if err := <-killed; err != nil {
		t.Fatal(err)
	}
	f.exact(t, rows)
	if f.Res.Retries == 0 {
		t.Errorf("no re-send across the restart:\n%s", f.Log)
	}
	t.Logf("%d re-sends across the restart", f.Res.Retries)
}

// TestFaultStall stalls the connection for 2.5 s, past the 700 ms request
// timeout; the stalled requests may land afterwards and merge with their
// re-sends.
func TestFaultStall(t *testing.T) {
	tg := realTarget(t, nil)
	p, base := proxyTo(t, tg)
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
	f := runFault(t, tg, base, path, 700*time.Millisecond, 500, 2)
	f.exact(t, 20000)
	if f.Res.Retries == 0 || !strings.Contains(f.Log, "deadline exceeded") {
		t.Errorf("retries %d; no timeout reported:\n%s", f.Res.Retries, f.Log)
	}
}

// TestFaultMemoryPressure: bursts of 422 Memory Exhausted Retry Later while
// the load runs. The stand-in answers them: a real server gives them only
// under memory pressure that cannot be produced on demand.
func TestFaultMemoryPressure(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	tg := standInTarget(t, s, nil)
	p, base := proxyTo(t, tg)
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
	f := runFault(t, tg, base, path, 10*time.Second, 700, 3)
	f.Exact(t, 30000)
	if n := s.Rows("bench", "cpu"); n != 30000 {
		t.Fatalf("server holds %d rows", n)
	}
	if f.Res.Retries < 4 || !strings.Contains(f.Log, cnosdbtest.MemoryExhaustedMsg) {
		t.Errorf("retries %d\n%s", f.Res.Retries, f.Log)
	}
	t.Logf("%d re-sends", f.Res.Retries)
}

// TestFaultBadLine: the server refuses a whole batch (422 040004) in the
// middle of the input; the run stops, counting the batches before it.
func TestFaultBadLine(t *testing.T) {
	tg := realTarget(t, nil)
	path := faultFile(t, 5000, func(i int, line string) string {
		if i == 2345 {
			return "cpu,hostname=x usage_user=oops 1\n"
		}
		return line
	})
	f := runFault(t, tg, "", path, 10*time.Second, 500, 1)
	r := f.failed(t, "040004")
	if r.Rows != 2000 || r.Retries != 0 {
		t.Fatalf("rows %d retries %d, want 2000 and 0", r.Rows, r.Retries)
	}
}

// TestFaultRefusedBatchNotCounted: with two workers, a batch the server
// refuses (a field of another type, 422 050014) is not counted while the
// other worker's batches are; the results file equals the server's count.
func TestFaultRefusedBatchNotCounted(t *testing.T) {
	tg := realTarget(t, nil)
	path := faultFile(t, 20000, func(i int, line string) string {
		if i == 12345 {
			return strings.Replace(line, "usage_idle=45i", `usage_idle="text"`, 1)
		}
		return line
	})
	f := runFault(t, tg, "", path, 10*time.Second, 500, 2)
	r := f.failed(t, "050014")
	if r.Rows >= 20000 || r.Rows%500 != 0 {
		t.Fatalf("rows %d: want whole batches only, fewer than 20000", r.Rows)
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
	tg := realTarget(t, nil)
	path := faultFile(t, 3000, nil)
	rc := loadtest.FaultConfig(path, 700, 3)
	rc.Prepare = load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true}
	rc.Loader, rc.Target = "load_cnosdb", "cnosdb"
	f := faultRun{loadtest.RunLoad(t, rc, dropAfterPrepare{tg}), tg}
	if f.Err == nil || !strings.Contains(f.Err.Error(), "Database not found") {
		t.Fatalf("err = %v\n%s", f.Err, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	if r.Status != load.StatusFailed || r.Rows != 0 || r.Retries != 0 {
		t.Fatalf("results: status %q rows %d retries %d", r.Status, r.Rows, r.Retries)
	}
}
