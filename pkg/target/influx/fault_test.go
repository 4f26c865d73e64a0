package influx

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Fault injection through internal/faultproxy, the whole path (runner.Run,
// this target, a real InfluxDB). Retryable faults must end with the exact
// count verified; non-retryable ones with an error naming the cause and a
// results file marked failed whose rows equal what the database holds.
// The shared fault scenarios are TestTargetSuite's faults (privateInflux
// for its kill); back-pressure (cache-max-memory-size exceeded) is
// TestRunnerCacheFull and a server restart (kill -9) TestRunnerServerRestart.

// faultRun loads path through url into a fresh database with a results
// file. The target stays open (for counting) until the test ends.
type faultRun struct {
	loadtest.Run
	tg *Target
}

func runFault(t *testing.T, target *Target, dbTarget load.Target, path string, batch, workers int, mod func(*runner.Config)) faultRun {
	t.Helper()
	db := uniqueDB(t)
	t.Cleanup(func() { target.Query(context.Background(), "", "DROP DATABASE "+quoteIdent(db)) })
	cfg := loadtest.FaultConfig(path, batch, workers)
	cfg.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	cfg.Loader, cfg.Target = "load_influx", "influx"
	if mod != nil {
		mod(&cfg)
	}
	if dbTarget == nil {
		dbTarget = target
	}
	return faultRun{Run: loadtest.RunLoad(t, cfg, dbTarget), tg: target}
}

func newFaultTarget(t *testing.T, base string, timeout time.Duration) *Target {
	t.Helper()
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, Gzip: true, GzipLevel: 1, RequestTimeout: timeout}, Precision: "n"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// dbRows is the number of points in cpu and mem of the run's database.
func (f faultRun) dbRows(t *testing.T) int64 {
	t.Helper()
	got, err := f.tg.Count(context.Background(), []string{"cpu", "mem"})
	if err != nil {
		t.Fatal(err)
	}
	return got["cpu"] + got["mem"]
}

// failed checks a run that must have failed loudly: the error names want,
// the results file says failed, and its rows are what the database holds.
func (f faultRun) failed(t *testing.T, want string) results.Results {
	t.Helper()
	if f.Err == nil || !strings.Contains(f.Err.Error(), want) {
		t.Fatalf("err = %v, want one naming %q\n%s", f.Err, want, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, want) {
		t.Fatalf("results: status %q error %q", r.Status, r.Error)
	}
	if n := f.dbRows(t); n != r.Rows {
		t.Fatalf("results file counts %d rows, the database holds %d", r.Rows, n)
	}
	return r
}

// privateInflux starts an InfluxDB 1.x of the test's own
// (scripts/start_influxdb.sh on free ports, its own state) for the
// suite's kill scenario.
func privateInflux(t *testing.T) loadtest.Private {
	srv, base := privateV1(t, "kill")
	const db = "kill"
	return loadtest.Private{
		Upstream: base,
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, RequestTimeout: timeout}, Precision: "n"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
			direct, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}}, Precision: "n", DBName: db})
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			got, err := direct.Count(context.Background(), []string{table})
			if err != nil {
				t.Fatal(err)
			}
			// A point is stored once per (series, time): the count is the
			// distinct keys.
			return got[table], got[table]
		},
		Kill: srv.Kill, Start: srv.Start,
	}
}

// TestFaultRefusedRows: batches in the middle of the file conflict with
// the field types already written; the server drops them (400 partial
// write), the run goes on, and ends failed naming the lines.
func TestFaultRefusedRows(t *testing.T) {
	base := influxURL(t)
	path := ilpFile(t, 10000, 23)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	bad := 0
	for i := 6000; i < 7000; i++ { // usage_nice is an integer field: make it a string
		if strings.HasPrefix(lines[i], "cpu,") {
			lines[i] = strings.Replace(lines[i], "usage_nice=", `usage_nice="x",was=`, 1)
			bad++
		}
	}
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	tg := newFaultTarget(t, base, 10*time.Second)
	f := runFault(t, tg, nil, path, 1000, 1, nil)
	r := f.failed(t, "field type conflict")
	if !strings.Contains(f.Err.Error(), "rows rejected by the server") || r.Rows != int64(10000-bad) || r.RejectedRows != int64(bad) {
		t.Fatalf("rows %d rejected %d (want %d, %d): %v", r.Rows, r.RejectedRows, 10000-bad, bad, f.Err)
	}
}

// dropAfterPrepare drops the database right after Prepare, so every write
// gets 404 database not found.
type dropAfterPrepare struct{ *Target }

func (d dropAfterPrepare) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if err := d.Target.Prepare(ctx, opts); err != nil {
		return err
	}
	_, err := d.Query(ctx, "", "DROP DATABASE "+quoteIdent(opts.DBName))
	return err
}

// TestFaultDatabaseNotFound: 404 is not retryable; nothing is counted.
func TestFaultDatabaseNotFound(t *testing.T) {
	base := influxURL(t)
	path := ilpFile(t, 5000, 24)
	tg := newFaultTarget(t, base, 10*time.Second)
	f := runFault(t, tg, dropAfterPrepare{tg}, path, 1000, 2, nil)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "database not found") {
		t.Fatalf("err = %v\n%s", f.Err, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	if r.Status != results.StatusFailed || r.Rows != 0 || r.Retries != 0 {
		t.Fatalf("status %s rows %d retries %d", r.Status, r.Rows, r.Retries)
	}
	dbs, err := tg.databases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if dbs[tg.cfg.DBName] {
		t.Fatalf("database %s exists: a write created it?", tg.cfg.DBName)
	}
}

// TestFaultRetentionPolicyNotFound: --rp naming a missing policy fails
// before loading, naming it.
func TestFaultRetentionPolicyNotFound(t *testing.T) {
	base := influxURL(t)
	path := ilpFile(t, 1000, 25)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, RequestTimeout: 10 * time.Second}, Precision: "n", RP: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	f := runFault(t, tg, nil, path, 500, 1, nil)
	f.tg = newFaultTarget(t, base, 10*time.Second) // counts the default policy
	f.tg.cfg.DBName = tg.cfg.DBName
	r := f.failed(t, `retention policy "nope" not found`)
	if r.Rows != 0 {
		t.Fatalf("rows %d", r.Rows)
	}
}

// TestFaultTruncatedInput: the input is a gzip file cut short. The batches
// before the cut are loaded and counted, the run fails naming the file and
// the compressed byte offset.
func TestFaultTruncatedInput(t *testing.T) {
	base := influxURL(t)
	raw, err := os.ReadFile(ilpFile(t, 20000, 26))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	path := filepath.Join(t.TempDir(), "cut.ilp.gz")
	os.WriteFile(path, z.Bytes()[:z.Len()*2/3], 0o644)
	tg := newFaultTarget(t, base, 10*time.Second)
	f := runFault(t, tg, nil, path, 1000, 2, nil)
	r := f.failed(t, "cut.ilp.gz: truncated gzip stream")
	if r.Rows == 0 || r.Rows >= 20000 || r.Rows%1000 != 0 {
		t.Fatalf("rows %d: want the whole batches before the cut", r.Rows)
	}
}

// faultTarget makes the suites' targets: database db, through proxy.
func faultTarget(db string) func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, RequestTimeout: timeout}, Precision: "n"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			tg.Query(context.Background(), "", "DROP DATABASE "+quoteIdent(db))
			tg.Close()
		})
		return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	}
}

// pointRows counts table's points: a point's series and time are its key,
// so the distinct keys are the rows.
func pointRows(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	got, err := tg.Count(context.Background(), []string{table})
	if err != nil {
		t.Fatal(err)
	}
	return got[table], got[table]
}
