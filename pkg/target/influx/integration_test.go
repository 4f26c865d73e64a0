package influx

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Integration tests against a real InfluxDB 1.x started by
// scripts/start_influxdb.sh. They skip when the server is unreachable and CI
// is unset; with CI set, an unreachable server fails them.

func influxURL(t *testing.T) string {
	t.Helper()
	return loadtest.HTTPServer(t, "InfluxDB", "TSLOAD_INFLUX_URL", "http://127.0.0.1:8086", "scripts/start_influxdb.sh")
}

func uniqueDB(t *testing.T) string {
	return fmt.Sprintf("tsload_test_%s_%d", strings.ReplaceAll(strings.ToLower(t.Name()), "/", "_"), time.Now().UnixNano()%1e9)
}

// newTarget prepares a fresh database and drops it when the test ends.
func newTarget(t *testing.T, url string, cfg Config) *Target {
	t.Helper()
	cfg.URLs = []string{url}
	if cfg.Precision == "" {
		cfg.Precision = "n"
	}
	if cfg.DBName == "" {
		cfg.DBName = uniqueDB(t)
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Prepare(context.Background(), load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tg.Query(context.Background(), "", "DROP DATABASE "+quoteIdent(cfg.DBName))
		tg.Close()
	})
	return tg
}

// genBatches cuts rows of synthetic cpu/mem line protocol into batches of
// size rows, with line numbers as a splitter would give them.
func genBatches(rows, size int, seed int) []*load.Batch {
	var out []*load.Batch
	line := int64(1)
	for start := 0; start < rows; start += size {
		var sb strings.Builder
		b := &load.Batch{Format: format.ILP, Source: "gen.ilp", FirstLine: line, FirstRecord: line, Seq: int64(len(out) + 1)}
		var cpu, mem int64
		for i := start; i < start+size && i < rows; i++ {
			ts := int64(1600000000000000000) + int64(i/20)*10e9
			if i%4 == 3 {
				fmt.Fprintf(&sb, "mem,hostname=host_%d,region=eu-%d used=%di,free=%d.25 %d\n", i%20, seed, i, i%97, ts)
				mem++
			} else {
				fmt.Fprintf(&sb, "cpu,hostname=host_%d,region=eu-%d usage_user=%d.5,usage_idle=%d.75,usage_nice=%di %d\n", i%20, seed, i%100, i%13, i%7, ts)
				cpu++
			}
			b.Rows++
			b.Metrics += 2
			line++
		}
		b.Data = []byte(sb.String())
		b.Tables = []load.TableRows{{Name: "cpu", Rows: cpu}, {Name: "mem", Rows: mem}}
		out = append(out, b)
	}
	return out
}

// writeAll writes batches with workers writers, re-sending a batch on a
// retryable error (as the runner does) until deadline. It returns the rows
// acknowledged and the number of re-sends.
func writeAll(t *testing.T, tg *Target, batches []*load.Batch, workers int, deadline time.Duration) (int64, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	ch := make(chan *load.Batch)
	var mu sync.Mutex
	var rows, retries int64
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wr, err := tg.NewWriter(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer wr.Close()
			for b := range ch {
				backoff := 50 * time.Millisecond
				for {
					ack, err := wr.Write(ctx, b)
					if err == nil {
						mu.Lock()
						rows += int64(ack.Rows)
						mu.Unlock()
						break
					}
					if !load.IsRetryable(err) || ctx.Err() != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						cancel()
						break
					}
					mu.Lock()
					retries++
					mu.Unlock()
					time.Sleep(backoff)
					backoff = min(2*backoff, time.Second)
				}
			}
		}()
	}
	for _, b := range batches {
		select {
		case ch <- b:
		case <-ctx.Done():
		}
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("write: %v", firstErr)
	}
	return rows, retries
}

func expected(batches []*load.Batch) map[string]int64 {
	want := map[string]int64{}
	for _, b := range batches {
		for _, tr := range b.Tables {
			want[tr.Name] += tr.Rows
		}
	}
	return want
}

func checkCounts(t *testing.T, tg *Target, want map[string]int64) {
	t.Helper()
	got, err := tg.Count(context.Background(), []string{"cpu", "mem"})
	if err != nil {
		t.Fatal(err)
	}
	for m, n := range want {
		if got[m] != n {
			t.Errorf("%s: count %d, want %d", m, got[m], n)
		}
	}
}

func TestIntegrationExactCounts(t *testing.T) {
	url := influxURL(t)
	for _, tc := range []struct {
		batch, workers int
		gzip           bool
	}{{1000, 1, true}, {5000, 2, true}, {777, 3, false}} {
		t.Run(fmt.Sprintf("batch%d_workers%d_gzip%v", tc.batch, tc.workers, tc.gzip), func(t *testing.T) {
			tg := newTarget(t, url, Config{Conn: httpwrite.Conn{Gzip: tc.gzip, GzipLevel: 1}})
			batches := genBatches(12000, tc.batch, tc.batch)
			rows, _ := writeAll(t, tg, batches, tc.workers, time.Minute)
			if rows != 12000 {
				t.Fatalf("acknowledged %d rows, want 12000", rows)
			}
			checkCounts(t, tg, expected(batches))
		})
	}
}

func TestIntegrationPartialWrite(t *testing.T) {
	url := influxURL(t)
	tg := newTarget(t, url, Config{})
	w, _ := tg.NewWriter(context.Background(), 0)
	ctx := context.Background()
	if _, err := w.Write(ctx, batch("m,h=a v=1 1\n", 1)); err != nil {
		t.Fatal(err)
	}
	// Lines 42..46 of the input: two unparsable lines.
	b := batch("m,h=a v=1 11\nm,h=b v=oops x 12\nm,h=c v=3 13\n# comment\nm,h=d v= 14\n", 42)
	ack, err := w.Write(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Rows != 2 || ack.Dropped != 2 || len(ack.Rejected) != 2 || ack.Rejected[0].Line != 43 || ack.Rejected[1].Line != 46 {
		t.Fatalf("ack = %+v, want 2 rows written, lines 43 and 46 rejected", ack)
	}
	// A field type conflict (storage layer) in the same batch as a parse
	// failure: the server names only the conflict.
	b = batch("m,h=a v=1 21\nm,h=b v=\"s\" 22\nm,h=c v=3 23\nm,h=d v=oops x 24\n", 100)
	ack, err = w.Write(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Rows != 2 || ack.Dropped != 2 || len(ack.Rejected) != 2 || ack.Rejected[0].Line != 103 ||
		!strings.Contains(ack.Rejected[1].Reason, `field type conflict: input field "v" on measurement "m" is type string, already exists as type float`) {
		t.Fatalf("ack = %+v", ack)
	}
	got, err := tg.Count(ctx, []string{"m"})
	if err != nil {
		t.Fatal(err)
	}
	if got["m"] != 5 {
		t.Fatalf("count %d, want 5 (1 + 2 + 2 acknowledged)", got["m"])
	}
	// Every line unparsable: nothing written, every line named.
	ack, err = w.Write(ctx, batch("bad line\nworse\n", 7))
	if err != nil || ack.Rows != 0 || len(ack.Rejected) != 2 || ack.Rejected[0].Line != 7 || ack.Rejected[1].Line != 8 {
		t.Fatalf("all bad: ack %+v, err %v", ack, err)
	}
	// A conflict inside the first batch of a fresh database: the whole write
	// fails with a bare "field type conflict" (in a database that already has
	// a shard for the time range, the server answers a partial write instead).
	fresh := newTarget(t, url, Config{})
	w, _ = fresh.NewWriter(ctx, 0)
	ack, err = w.Write(ctx, batch("n,h=a v=1 1\nn,h=d v=\"str\" 4\n", 1))
	if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "field type conflict") {
		t.Fatalf("err = %v, want a fatal field type conflict (ack %+v)", err, ack)
	}
}

func TestIntegrationFatal(t *testing.T) {
	url := influxURL(t)
	tg := newTarget(t, url, Config{})
	ctx := context.Background()
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{DBName: "tsload_no_such_db", Precision: "n"}, `database not found: "tsload_no_such_db" (404)`},
		{Config{DBName: tg.cfg.DBName, RP: "nope", Precision: "n"}, `retention policy not found: nope (500): check RP`},
	}
	for _, tc := range tests {
		tc.cfg.URLs = []string{url}
		other, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := other.NewWriter(ctx, 0)
		_, err = w.Write(ctx, batch("m v=1 1\n", 1))
		if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want fatal %q", err, tc.want)
		}
	}
	// Prepare checks --rp before loading.
	other, _ := New(Config{Conn: httpwrite.Conn{URLs: []string{url}}, DBName: tg.cfg.DBName, RP: "nope", Precision: "n"})
	if err := other.Prepare(ctx, load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true}); err == nil || !strings.Contains(err.Error(), `retention policy "nope" not found`) {
		t.Errorf("Prepare: err = %v", err)
	}
	if err := other.Prepare(ctx, load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true, AbortOnExist: true}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Prepare --do-abort-on-exist: err = %v", err)
	}
}

// privateV1 starts an InfluxDB 1.x of the test's own
// (scripts/start_influxdb.sh on free ports, its own state, instance name
// and extra environment, e.g. a tiny cache), stopped when the test ends.
// It returns the server (Kill, Start) and its URL.
func privateV1(t *testing.T, name string, extra ...string) (*loadtest.ScriptServer, string) {
	t.Helper()
	influxURL(t) // same skip rule: no local InfluxDB, no second one either
	if _, err := exec.LookPath("influxd"); err != nil {
		loadtest.SkipOrFail(t, "influxd not installed", "influxd not installed under CI")
	}
	srv := loadtest.PrivateServer(t, "INFLUX", name, 0, 1) // p+1: the RPC listener
	srv.StartScript, srv.StopScript = "scripts/start_influxdb.sh", "scripts/stop_influxdb.sh"
	srv.Env = append(append(srv.Env, "INFLUX_RPC_PORT="+strconv.Itoa(srv.Port+1)), extra...)
	srv.PIDFile = filepath.Join(srv.State, "influx", name, "influxd.pid")
	srv.Run(t)
	return srv, fmt.Sprintf("http://127.0.0.1:%d", srv.Port)
}

// restart kills srv (SIGKILL: no clean shutdown) and, after pause,
// starts it again.
func restart(t *testing.T, srv *loadtest.ScriptServer, pause time.Duration) {
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(pause)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationCacheFull(t *testing.T) {
	_, url := privateV1(t, "tiny", "INFLUX_CACHE_MAX=1m", "INFLUX_CACHE_SNAPSHOT=256k")
	tg := newTarget(t, url, Config{Conn: httpwrite.Conn{Gzip: true, GzipLevel: 1}})
	// Check the server's words first.
	w, _ := tg.NewWriter(context.Background(), 0)
	big := genBatches(20000, 20000, 1)[0]
	var sawFull bool
	for i := 0; i < 10 && !sawFull; i++ {
		_, err := w.Write(context.Background(), big)
		if err != nil {
			if !load.IsRetryable(err) || !strings.Contains(err.Error(), "500 engine: cache-max-memory-size exceeded: (") {
				t.Fatalf("err = %v, want retryable cache-max-memory-size exceeded", err)
			}
			sawFull = true
		}
	}
	if !sawFull {
		t.Fatal("the 1 MiB cache never filled")
	}
	tg2 := newTarget(t, url, Config{Conn: httpwrite.Conn{Gzip: true, GzipLevel: 1}})
	batches := genBatches(60000, 5000, 2)
	rows, retries := writeAll(t, tg2, batches, 2, 90*time.Second)
	if rows != 60000 {
		t.Fatalf("acknowledged %d rows, want 60000", rows)
	}
	if retries == 0 {
		t.Error("no batch was retried: the cache never filled")
	}
	t.Logf("%d re-sends after cache-max-memory-size exceeded", retries)
	checkCounts(t, tg2, expected(batches))
}

func TestIntegrationServerRestart(t *testing.T) {
	srv, url := privateV1(t, "restart")
	tg := newTarget(t, url, Config{Conn: httpwrite.Conn{Gzip: true, GzipLevel: 1}})
	batches := genBatches(40000, 1000, 3)
	done := make(chan struct{})
	var rows, retries int64
	go func() {
		defer close(done)
		rows, retries = writeAll(t, tg, batches, 2, 90*time.Second)
	}()
	time.Sleep(300 * time.Millisecond)
	restart(t, srv, 500*time.Millisecond)
	<-done
	if rows != 40000 {
		t.Fatalf("acknowledged %d rows, want 40000", rows)
	}
	t.Logf("%d re-sends across the restart", retries)
	checkCounts(t, tg, expected(batches))
	if retries == 0 {
		t.Log("the load finished before the server was killed: raise the row count")
	}
}

func TestIntegrationCountSparseFields(t *testing.T) {
	url := influxURL(t)
	tg := newTarget(t, url, Config{})
	w, _ := tg.NewWriter(context.Background(), 0)
	// 6 points; every field is missing from some point, at most one per point.
	data := "r,t=a a=1,b=2i,c=3,s=\"x\" 1\nr,t=a b=2i,c=3 2\nr,t=a a=1,c=3 3\nr,t=a a=1,b=2i 4\nr a=1,b=1i,c=1 5\nr,t=b a=1,b=2i,c=3,s=\"y\" 6\n"
	if _, err := w.Write(context.Background(), batch(data, 1)); err != nil {
		t.Fatal(err)
	}
	got, err := tg.Count(context.Background(), []string{"r", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	if got["r"] != 6 || got["absent"] != 0 {
		t.Fatalf("counts %v, want r=6 absent=0", got)
	}
}
