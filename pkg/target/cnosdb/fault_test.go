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
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Faults on the whole path (runner.Run, this target) against the real
// CnosDB or the stand-in where the server cannot be made to misbehave on
// demand (memory pressure). The shared fault scenarios (connections cut
// mid-batch, a stall past the request timeout, refused connections, a bad
// line refused for good, the server killed) are TestTargetSuite's faults.
// Retryable faults must end with the exact count verified;
// non-retryable ones with an error naming the cause and a results file
// marked failed whose rows equal what the server holds.

// privateCnosDB starts a CnosDB of the test's own for the suite's kill
// scenario.
func privateCnosDB(t *testing.T) loadtest.Private {
	in := cnosdbtest.StartInstance(t, "kill", cnosdbtest.InstanceOptions{})
	const db = "kill"
	return loadtest.Private{
		Upstream: in.URL,
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			// Uncompressed, so that the kill lands a fifth of the way in.
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, User: "root", RequestTimeout: timeout}, Tenant: "cnosdb", Precision: "ns",
				DBName: db})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
			return distinctRows(t, in.URL, db, table)
		},
		Kill: in.Kill, Start: in.Start,
	}
}

// faultTarget makes the suites' targets: database db through proxy, gzip.
func faultTarget(db string) func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, User: "root", Gzip: true, GzipLevel: 1, RequestTimeout: timeout}, Tenant: "cnosdb", Precision: "ns",
			DBName: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	}
}

// faultRows reads a table's rows and distinct keys of database db at base.
func faultRows(base, db string) func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
	return func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
		return distinctRows(t, base, db, table)
	}
}

// distinctRows counts table's rows and distinct (time, host) keys.
func distinctRows(t *testing.T, base, db, table string) (rows, keys int64) {
	rows = cnosdbtest.Count(t, base, db, table)
	st, body, err := cnosdbtest.SQL(base, "root", "", db, fmt.Sprintf(`SELECT count(*) AS n FROM (SELECT DISTINCT time, host FROM "%s")`, table))
	if err != nil || st != 200 {
		t.Fatalf("distinct keys: %d %s %v", st, body, err)
	}
	fmt.Sscanf(body, `[{"n":%d}]`, &keys)
	return rows, keys
}

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

// failed checks a run that must have failed naming want, with the results
// file counting exactly the rows the server holds.
func (f faultRun) failed(t *testing.T, want string) results.Results {
	t.Helper()
	if f.Err == nil || !strings.Contains(f.Err.Error(), want) {
		t.Fatalf("err = %v, want one naming %q\n%s", f.Err, want, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	held := count(t, f.tg, "cpu")
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, want) || r.Rows != held {
		t.Fatalf("results: status %q rows %d error %q; the server holds %d", r.Status, r.Rows, r.Error, held)
	}
	return r
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
	if r.Status != results.StatusFailed || r.Rows != 0 || r.Retries != 0 {
		t.Fatalf("results: status %q rows %d retries %d", r.Status, r.Rows, r.Retries)
	}
}
