package influx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// settledCount counts table until two counts a second apart agree: rows
// written with no_sync become countable a moment after their answer.
func settledCount(t *testing.T, tg load.Target, table string) int64 {
	t.Helper()
	last := int64(-1)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		got, err := tg.Count(context.Background(), []string{table})
		if err != nil {
			t.Fatal(err)
		}
		if got[table] == last || time.Now().After(deadline) {
			return got[table]
		}
		last = got[table]
	}
}

// TestV3Faults runs the shared fault scenarios (internal/loadtest.FaultSuite)
// on the real InfluxDB 3 through a fault proxy: cut mid-batch, a stall past
// the request timeout, refused connections, and a line of the wrong column
// type, which refuses its whole batch (accept_partial=false) without retry.
// The writes use no_sync: a durable write waits for the server's 1 s WAL
// flush, which would make the suite's 1 s request timeout fire on every
// batch and the suite take minutes; the scenarios are about the network,
// not the disk (TestV3ServerRestart is about the disk).
func TestV3Faults(t *testing.T) {
	r := influx3test.RealServer(t)
	loadtest.FaultSuite{
		Loader:   "load_influx",
		Upstream: r.URL,
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			db := influx3test.UniqueDB(t)
			r.DropAtEnd(t, db)
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, Gzip: true, GzipLevel: 1, RequestTimeout: timeout}, API: APIv3, Precision: "n", Token: r.Token, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, tg load.Target, table string) (rows, keys int64) {
			// A point stored twice (a timed-out request re-sent) overwrites
			// itself: rows are distinct keys.
			n := settledCount(t, tg, table)
			return n, n
		},
		Refuse:    func(line string) string { return strings.Replace(line, " v=", ` v="oops",w=`, 1) },
		RefuseErr: []string{"nothing of it written", "schema conflict", "invalid column type for column 'v'"},
	}.Run(t, "fault")
}

// TestV3ServerRestart: a private InfluxDB 3 is killed (SIGKILL) during a
// durable load and started again; the batches in flight are re-sent, and
// the count after is exact: an acknowledged write was in the WAL. (Each
// durable write waits for the 1 s WAL flush, so the load lasts 12 s or more
// whatever the machine: the kill at 3 s falls inside it.)
func TestV3ServerRestart(t *testing.T) {
	influx3test.RealServer(t)
	in := influx3test.StartInstance(t, "restart", influx3test.InstanceOptions{})
	path := ilpFile(t, 12000, 31)
	type out struct {
		res *results.Results
		err error
		log string
	}
	done := make(chan out, 1)
	go func() {
		res, err, log := v3LoadFile(in.URL, in.Token, path, func(rc *runner.Config) { rc.BatchSize = 500 })
		done <- out{res, err, log}
	}()
	time.Sleep(3 * time.Second)
	if err := in.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := in.Start(); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatalf("%v\n%s", o.err, o.log)
	}
	if o.res.Rows != 12000 || !o.res.Verify.OK || o.res.Retries == 0 {
		t.Fatalf("rows %d retries %d verify %+v\n%s", o.res.Rows, o.res.Retries, o.res.Verify, o.log)
	}
	if n := in.Count(t, "restart", "cpu") + in.Count(t, "restart", "mem"); n != 12000 {
		t.Fatalf("the server holds %d rows after the restart", n)
	}
	t.Logf("%d re-sends across the restart", o.res.Retries)
}

// v3LoadFile loads path into database "restart" of the server at url with
// 2 workers and durable writes, re-sending for up to 60 s.
func v3LoadFile(url, token, path string, mod func(*runner.Config)) (*results.Results, error, string) {
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{url}, Gzip: true, GzipLevel: 1, RequestTimeout: 10 * time.Second}, API: APIv3, Precision: "n", Token: token})
	if err != nil {
		return nil, err, ""
	}
	defer tg.Close()
	var stderr strings.Builder
	cfg := loadtest.FaultConfig(path, 1000, 2)
	cfg.Prepare = load.PrepareOptions{DBName: "restart", CreateDB: true, DropDB: true}
	cfg.Loader, cfg.Target, cfg.Stderr = "load_influx", "influx", &stderr
	if mod != nil {
		mod(&cfg)
	}
	res, err := runner.Run(context.Background(), cfg, tg)
	return res, err, stderr.String()
}
