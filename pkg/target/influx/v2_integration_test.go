package influx

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Integration tests against the real InfluxDB 2.7.12 of
// scripts/start_influxdb.sh --version 2 (org tsload, token
// tsload-test-token). They skip when it is unreachable and CI is unset.

func influx2(t testing.TB) Config {
	t.Helper()
	u := loadtest.HTTPServer(t, "InfluxDB 2", "TSLOAD_INFLUX2_URL", "http://127.0.0.1:8087", "scripts/start_influxdb.sh --version 2")
	token := os.Getenv("TSLOAD_INFLUX2_TOKEN")
	if token == "" {
		token = "tsload-test-token"
	}
	return Config{Conn: httpwrite.Conn{URLs: []string{u}, Gzip: true, GzipLevel: 1, RequestTimeout: 30 * time.Second}, Token: token, Org: "tsload", Precision: "n"}
}

// newV2Target prepares a fresh bucket and deletes it when the test ends.
func newV2Target(t *testing.T, cfg Config) *Target {
	t.Helper()
	cfg.DBName = uniqueDB(t)
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Drop by preparing with --drop-db and nothing to create.
		tg.Prepare(context.Background(), load.PrepareOptions{DBName: cfg.DBName, DropDB: true})
		tg.Close()
	})
	return tg
}

// TestV2Load: detected from /ping, loaded through the runner in several
// batch and worker shapes, every row counted exactly by the Flux query.
func TestV2Load(t *testing.T) {
	cfg := influx2(t)
	path := ilpFile(t, 12000, 21)
	for _, tc := range []struct{ batch, workers int }{{1000, 1}, {5000, 3}} {
		tg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if api, err := tg.API(context.Background()); err != nil || api != APIv2 {
			t.Fatalf("api %q, %v", api, err)
		}
		db := uniqueDB(t)
		t.Cleanup(func() {
			tg.Prepare(context.Background(), load.PrepareOptions{DBName: db, DropDB: true})
			tg.Close()
		})
		var log strings.Builder
		res, err := runner.Run(context.Background(), runner.Config{
			Inputs: []string{path}, BatchSize: tc.batch, Workers: tc.workers, DoLoad: true, Verify: true,
			ReportingPeriod: time.Hour, RetryTimeout: 30 * time.Second, Stderr: &log,
			Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
			Loader:  "load_influx", Target: "influx",
		}, tg)
		if err != nil || res.Rows != 12000 || !res.Verify.OK || res.Verify.Actual["cpu"] != 9000 || res.Verify.Actual["mem"] != 3000 {
			t.Fatalf("batch %d workers %d: err %v rows %d verify %+v\n%s", tc.batch, tc.workers, err, res.Rows, res.Verify, log.String())
		}
	}
}

// TestV2RefusedLines: 2.7.12 writes nothing of a batch with unparsable
// lines and names them all (400); the loader reports them with their input
// line numbers and re-sends the rest. A field type conflict is the storage
// layer's 422 partial write. The counts are exact.
func TestV2RefusedLines(t *testing.T) {
	tg := newV2Target(t, influx2(t))
	ctx := context.Background()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	// Lines 42..46 of the input: two unparsable lines.
	b := batch("m,h=a v=1 11\nm,h=b v=oops x 12\nm,h=c v=3 13\n# comment\nm,h=d v= 14\n", 42)
	ack, err := w.Write(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Rows != 2 || ack.Dropped != 2 || len(ack.Rejected) != 2 || ack.Rejected[0].Line != 43 || ack.Rejected[1].Line != 46 ||
		!strings.HasPrefix(ack.Rejected[0].Reason, "unable to parse: ") {
		t.Fatalf("ack = %+v, want 2 rows written, lines 43 and 46 rejected", ack)
	}
	// A field type conflict: 422, the others written, the dropped points
	// counted (the server does not name them).
	b = batch("m,h=a v=1 21\nm,h=b v=\"s\" 22\nm,h=c v=3 23\n", 100)
	ack, err = w.Write(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Rows != 2 || ack.Dropped != 1 || len(ack.Rejected) != 1 ||
		!strings.Contains(ack.Rejected[0].Reason, `field type conflict: input field "v" on measurement "m" is type string, already exists as type float`) {
		t.Fatalf("ack = %+v", ack)
	}
	// Every line unparsable: nothing written, every line named.
	ack, err = w.Write(ctx, batch("bad line\nworse\n", 7))
	if err != nil || ack.Rows != 0 || len(ack.Rejected) != 2 || ack.Rejected[0].Line != 7 || ack.Rejected[1].Line != 8 {
		t.Fatalf("all bad: ack %+v, err %v", ack, err)
	}
	got, err := tg.Count(ctx, []string{"m", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if got["m"] != 5 || got["absent"] != 0 {
		t.Fatalf("count %v, want m 5 (1 + 2 + 2 acknowledged), absent 0", got)
	}
}

// TestV2CountPoints: a point is a series at a time, whatever fields it has
// (sparse fields, fields written by separate lines, an overwrite).
func TestV2CountPoints(t *testing.T) {
	tg := newV2Target(t, influx2(t))
	ctx := context.Background()
	w, _ := tg.NewWriter(ctx, 0)
	data := "s,h=a x=1,y=2 1\ns,h=a x=1 2\ns,h=a y=2 3\ns,h=b z=1i 1\ns,h=a z=5i 1\ns,h=a x=9 2\n"
	if ack, err := w.Write(ctx, batch(data, 1)); err != nil || ack.Rows != 6 {
		t.Fatalf("%+v %v", ack, err)
	}
	got, err := tg.Count(ctx, []string{"s"})
	if err != nil || got["s"] != 4 {
		t.Fatalf("count %v %v, want 4 points (a@1, a@2, a@3, b@1)", got, err)
	}
}

// TestV2Prepare: the bucket lifecycle through /api/v2/buckets, a named
// --bucket, a missing organization and a wrong token.
func TestV2Prepare(t *testing.T) {
	cfg := influx2(t)
	ctx := context.Background()
	cfg.Bucket = uniqueDB(t) + "_bucket"
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Prepare(ctx, load.PrepareOptions{DBName: "ignored", DropDB: true})
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "ignored"}); err == nil || !strings.Contains(err.Error(), `database "`+cfg.Bucket+`" does not exist`) {
		t.Fatalf("missing: %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "ignored", CreateDB: true}); err != nil {
		t.Fatal(err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "ignored", CreateDB: true, AbortOnExist: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("abort on exist: %v", err)
	}
	w, _ := tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	if got, err := tg.Count(ctx, []string{"m"}); err != nil || got["m"] != 1 {
		t.Fatalf("count in the named bucket: %v %v", got, err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "ignored", CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := tg.Count(ctx, []string{"m"}); err != nil || got["m"] != 0 {
		t.Fatalf("count after drop: %v %v", got, err)
	}

	bad := influx2(t)
	bad.Org = "no_such_org"
	tg, _ = New(bad)
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "x", CreateDB: true}); err == nil || !strings.Contains(err.Error(), `organization "no_such_org" not found`) {
		t.Fatalf("org: %v", err)
	}
	bad = influx2(t)
	bad.Token = "wrong-t0ken"
	tg, _ = New(bad)
	err = tg.Prepare(ctx, load.PrepareOptions{DBName: "x", CreateDB: true})
	if err == nil || !strings.Contains(err.Error(), "authentication failed (401 unauthorized access)") || strings.Contains(err.Error(), "wrong-t0ken") {
		t.Fatalf("token: %v", err)
	}
	w, _ = tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err == nil || !strings.Contains(err.Error(), "authentication failed (401 unauthorized access)") {
		t.Fatalf("write with a wrong token: %v", err)
	}
	// A bucket that does not exist: 404 named, not retried.
	tg, _ = New(influx2(t))
	tg.cfg.DBName = "no_such_bucket_x"
	w, _ = tg.NewWriter(ctx, 0)
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), `bucket "no_such_bucket_x" not found (404)`) {
		t.Fatalf("missing bucket: %v", err)
	}
}

// TestV2CacheFull: a second 2.7.12 instance with a 1 MiB cache answers 500
// "cache-max-memory-size exceeded" under load (nothing of that batch
// written); the writer marks it retryable and re-sent batches give exact
// counts.
func TestV2CacheFull(t *testing.T) {
	cfg := influx2(t)
	srv := loadtest.PrivateServer(t, "INFLUX", "v2tiny", 0, 0)
	srv.StartScript, srv.StopScript, srv.Args = "scripts/start_influxdb.sh", "scripts/stop_influxdb.sh", []string{"--version", "2"}
	srv.Env = append(srv.Env, "INFLUX_CACHE_MAX=1048576", "INFLUX_CACHE_SNAPSHOT=262144")
	srv.Run(t)
	cfg.URLs = []string{fmt.Sprintf("http://127.0.0.1:%d", srv.Port)}
	tg := newV2Target(t, cfg)
	w, _ := tg.NewWriter(context.Background(), 0)
	big := genBatches(20000, 20000, 1)[0]
	var sawFull bool
	for i := 0; i < 20 && !sawFull; i++ {
		if _, err := w.Write(context.Background(), big); err != nil {
			if !load.IsRetryable(err) || !strings.Contains(err.Error(), "server cache full (500 unexpected error writing points to database: engine: cache-max-memory-size exceeded: (") {
				t.Fatalf("err = %v, want retryable cache-max-memory-size exceeded", err)
			}
			sawFull = true
		}
	}
	if !sawFull {
		t.Fatal("the 1 MiB cache never filled")
	}
	tg2 := newV2Target(t, cfg)
	batches := genBatches(60000, 5000, 2)
	rows, retries := writeAll(t, tg2, batches, 2, 3*time.Minute)
	if rows != 60000 {
		t.Fatalf("acknowledged %d rows, want 60000", rows)
	}
	t.Logf("%d re-sends after cache-max-memory-size exceeded", retries)
	checkCounts(t, tg2, expected(batches))
}

// TestV2FaultCutMidBatch: connections to the real 2.7.12 cut mid-request
// (through a fault proxy) are re-sent; the load ends exact, and the bucket
// holds exactly the rows acknowledged.
func TestV2FaultCutMidBatch(t *testing.T) {
	cfg := influx2(t)
	p := loadtest.Proxy(t, cfg.URLs[0])
	path := ilpFile(t, 40000, 23)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if !loadtest.AfterBytes(p, 64<<10, stop) {
			return
		}
		p.CutAfter(4<<10, 6)
		p.CutAll()
		if loadtest.AfterBytes(p, 256<<10, stop) {
			p.CutAll()
		}
	}()
	pc := cfg
	pc.URLs = []string{"http://" + p.Addr()}
	pc.RequestTimeout = 10 * time.Second
	tg, err := New(pc)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	db := uniqueDB(t)
	direct, _ := New(cfg)
	t.Cleanup(func() { direct.Prepare(context.Background(), load.PrepareOptions{DBName: db, DropDB: true}) })
	rc := loadtest.FaultConfig(path, 1000, 2)
	rc.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	rc.Loader, rc.Target = "load_influx", "influx"
	run := loadtest.RunLoad(t, rc, tg)
	run.Exact(t, 40000)
	direct.cfg.DBName = db
	got, err := direct.Count(context.Background(), []string{"cpu", "mem"})
	if err != nil || got["cpu"]+got["mem"] != 40000 {
		t.Fatalf("bucket holds %v (%v), want 40000 points", got, err)
	}
	if st := p.Stats(); st.Cuts < 6 {
		t.Errorf("only %d connections cut", st.Cuts)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), run.Res.Retries)
}
