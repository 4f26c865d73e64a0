package questdb

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Integration tests talk to the QuestDB of scripts/start_questdb.sh. They
// skip when it is unreachable and CI is unset; under CI they fail.

type qdb struct{ http, pg, tcp string }

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// stateDir is the server root of scripts/start_questdb.sh.
func stateDir() string {
	return envOr("QUESTDB_ROOT", filepath.Join(envOr("TSLOAD_STATE", "/tmp/tsload"), "questdb"))
}

// lockServer serialises test processes around a server restart: every
// integration test holds a shared lock on a file next to the server's root
// for its duration, the restart test an exclusive one (several go test
// processes may test this package at once against the one server).
func lockServer(t *testing.T, exclusive bool) {
	t.Helper()
	path := stateDir() + ".testlock"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return // no state dir: nothing to coordinate with
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", path, err)
	}
	t.Cleanup(func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}

func server(t *testing.T) qdb {
	t.Helper()
	return serverLocked(t, false)
}

func serverLocked(t *testing.T, exclusive bool) qdb {
	t.Helper()
	lockServer(t, exclusive)
	s := qdb{
		http: envOr("TSLOAD_QUESTDB_HTTP", "http://127.0.0.1:9000"),
		pg:   envOr("TSLOAD_QUESTDB_PG", "postgres://admin:quest@127.0.0.1:8812/qdb"),
		tcp:  envOr("TSLOAD_QUESTDB_ILP_TCP", "127.0.0.1:9009"),
	}
	if err := ping(s.http, 2*time.Second); err != nil {
		loadtest.SkipOrFail(t,
			fmt.Sprintf("QuestDB not reachable (%v); start it with scripts/start_questdb.sh", err),
			fmt.Sprintf("QuestDB not reachable under CI: %v", err))
	}
	return s
}

func ping(base string, timeout time.Duration) error {
	c := http.Client{Timeout: timeout}
	resp, err := c.Get(base + "/ping")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("/ping: HTTP %d", resp.StatusCode)
	}
	return nil
}

// uniqueName returns a table name no other test run uses; the tables whose
// names start with it are dropped when the test ends.
func uniqueName(t *testing.T, prefix string) string {
	name := fmt.Sprintf("%s_%d_%04d", prefix, time.Now().UnixNano()/1e6%1e9, rand.Intn(10000))
	loadtest.DropQuestDBTables(t, envOr("TSLOAD_QUESTDB_HTTP", "http://127.0.0.1:9000"), name)
	return name
}

func testTable(name string) *schema.Table {
	return &schema.Table{Name: name, Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp},
		{Name: "host", Type: schema.Text, Tag: true},
		{Name: "region", Type: schema.Text, Tag: true},
		{Name: "v", Type: schema.Float8},
		{Name: "n", Type: schema.Int8},
	}}
}

// makeBatch builds rows [from, from+n) of table: host h<i%7>, region by
// host, timestamp 2024-01-01 + i ms (unique per row), with a comment line
// first. FirstLine is the input line of the comment.
func makeBatch(table string, from, n, size int, seq int64) *load.Batch {
	var b strings.Builder
	b.WriteString("# rows " + strconv.Itoa(from) + "\n")
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "%s,host=h%d,region=r%d v=%d.5,n=%di %d\n", table, i%7, i%7%3, i, i, int64(1704067200000000000)+int64(i)*1e6)
	}
	// Input line of the comment: batches are laid out back to back, each
	// size rows plus one comment line.
	first := int64(from/size)*int64(size+1) + 1
	return &load.Batch{Format: format.ILP, Data: []byte(b.String()), Rows: n, Metrics: 2 * n,
		Source: "gen.ilp", FirstLine: first, FirstRecord: int64(from) + 1, Seq: seq,
		Tables: []load.TableRows{{Name: table, Rows: int64(n)}}}
}

func newTarget(t *testing.T, s qdb, transport Transport, pg bool, tables ...*schema.Table) *Target {
	t.Helper()
	cfg := Config{Transport: transport, URL: s.http, TCPAddr: s.tcp, Dedup: true, WALTimeout: time.Minute}
	if pg {
		cfg.PG = s.pg
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Leave the shared server as it was: drop this test's tables.
		if q, err := tg.withQuerier(context.Background()); err == nil {
			for _, tb := range tables {
				q.query(context.Background(), "DROP TABLE IF EXISTS "+quote(tb.Name))
			}
		}
		tg.Close()
	})
	err = tg.Prepare(context.Background(), load.PrepareOptions{CreateDB: true, DropDB: true, Tables: tables})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func writeRetry(ctx context.Context, w load.Writer, b *load.Batch, retries *atomic.Int64) (load.Ack, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		ack, err := w.Write(ctx, b)
		if err == nil || !load.IsRetryable(err) || time.Now().After(deadline) {
			return ack, err
		}
		retries.Add(1)
		time.Sleep(200 * time.Millisecond)
	}
}

// load writes batches of size rows [0, total) with workers writers, batch k
// going to worker k%workers, and returns the rows acknowledged.
func loadRows(t *testing.T, tg *Target, table string, total, size, workers int, mid func()) (int64, int64) {
	t.Helper()
	ctx := context.Background()
	var acked, retries atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	errs := make(chan error, workers)
	for wk := 0; wk < workers; wk++ {
		w, err := tg.NewWriter(ctx, wk)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(wk int, w load.Writer) {
			defer wg.Done()
			defer w.Close()
			for k := wk; k*size < total; k += workers {
				b := makeBatch(table, k*size, min(size, total-k*size), size, int64(k+1))
				ack, err := writeRetry(ctx, w, b, &retries)
				if err != nil {
					errs <- err
					return
				}
				acked.Add(int64(ack.Rows))
				if mid != nil && acked.Load() >= int64(total/3) {
					once.Do(mid)
				}
			}
		}(wk, w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return acked.Load(), retries.Load()
}

func TestIntegrationExactCounts(t *testing.T) {
	s := server(t)
	for _, tc := range []struct {
		transport     Transport
		pg            bool
		size, workers int
	}{
		{HTTP, true, 1000, 2},
		{HTTP, false, 333, 3},
		{TCP, true, 1000, 2},
		{TCP, false, 5000, 1},
	} {
		t.Run(fmt.Sprintf("%s/pg=%v/batch=%d/workers=%d", tc.transport, tc.pg, tc.size, tc.workers), func(t *testing.T) {
			name := uniqueName(t, "it_"+string(tc.transport))
			tg := newTarget(t, s, tc.transport, tc.pg, testTable(name))
			const total = 10000
			acked, _ := loadRows(t, tg, name, total, tc.size, tc.workers, nil)
			if acked != total {
				t.Fatalf("acknowledged %d rows, want %d", acked, total)
			}
			// ILP/TCP acknowledges nothing: wait for the rows, as the runner does.
			if err := tg.Await(context.Background(), map[string]int64{name: total}); err != nil {
				t.Fatal(err)
			}
			counts, err := tg.Count(context.Background(), []string{name, name + "_absent"})
			if err != nil {
				t.Fatal(err)
			}
			if counts[name] != total || counts[name+"_absent"] != 0 {
				t.Fatalf("counts %v, want %d and 0", counts, total)
			}
		})
	}
}

func TestIntegrationBadLineHTTP(t *testing.T) {
	s := server(t)
	name := uniqueName(t, "it_bad")
	tg := newTarget(t, s, HTTP, true, testTable(name))
	ctx := context.Background()
	w := openWriter(t, tg)
	if _, err := w.Write(ctx, makeBatch(name, 0, 100, 100, 1)); err != nil {
		t.Fatal(err)
	}
	// Batch 2 covers input lines 102-202 (comment, then rows 101-200);
	// break row 150, which is input line 102 + 50 = 152.
	bad := makeBatch(name, 100, 100, 100, 2)
	bad.Data = []byte(strings.Replace(string(bad.Data), "v=149.5", "v=oops", 1))
	_, err := w.Write(ctx, bad)
	if err == nil || load.IsRetryable(err) {
		t.Fatalf("bad line: err %v, want a fatal error", err)
	}
	for _, want := range []string{"HTTP 400", "input line 152:", "value: oops", "code invalid", "errorId", "rolled back"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	t.Logf("server refusal: %v", err)
	if _, err := w.Write(ctx, makeBatch(name, 200, 100, 100, 3)); err != nil {
		t.Fatal(err)
	}
	counts, err := tg.Count(ctx, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	// The refused request is rolled back whole; the batches around it stay.
	if counts[name] != 200 {
		t.Fatalf("count %d, want 200 (batches 1 and 3)", counts[name])
	}
}

func TestIntegrationBadLineTCP(t *testing.T) {
	s := server(t)
	name := uniqueName(t, "it_badtcp")
	tg := newTarget(t, s, TCP, false, testTable(name))
	ctx := context.Background()
	w := openWriter(t, tg)
	bad := makeBatch(name, 0, 100, 100, 1)
	bad.Data = []byte(strings.Replace(string(bad.Data), "v=49.5", "v=oops", 1))
	if _, err := w.Write(ctx, bad); err != nil {
		t.Fatalf("TCP write of a bad line: %v (the server cannot refuse it in band)", err)
	}
	// The server closes the connection on the bad line; the writer sees
	// that before sending the next batch.
	var werr error
	for i := 0; i < 50 && werr == nil; i++ {
		time.Sleep(100 * time.Millisecond)
		_, werr = w.Write(ctx, makeBatch(name, 100*(i+1), 100, 100, int64(i+2)))
	}
	if werr == nil || !strings.Contains(werr.Error(), "closed the connection") && !strings.Contains(werr.Error(), "connection lost") {
		t.Fatalf("after a bad line: %v, want the closed connection reported", werr)
	}
	t.Logf("writer error: %v", werr)
}

// TestIntegrationPrepareOptions checks --do-abort-on-exist, the refusal of
// an existing table without DEDUP when --dedup is on, and --drop-db.
func TestIntegrationPrepareOptions(t *testing.T) {
	s := server(t)
	ctx := context.Background()
	tb := testTable(uniqueName(t, "it_prep"))
	plain := newTargetOpts(t, s, false, load.PrepareOptions{CreateDB: true}, tb) // no DEDUP
	for _, tc := range []struct {
		dedup bool
		opts  load.PrepareOptions
		want  string
	}{
		{false, load.PrepareOptions{CreateDB: true, AbortOnExist: true}, "already exists (asked to abort if it exists)"},
		{true, load.PrepareOptions{CreateDB: true}, "exists without DEDUP"},
		{true, load.PrepareOptions{CreateDB: true, DropDB: true}, ""},
	} {
		tg, err := New(Config{URL: s.http, PG: s.pg, Dedup: tc.dedup})
		if err != nil {
			t.Fatal(err)
		}
		tc.opts.Tables = []*schema.Table{tb}
		err = tg.Prepare(ctx, tc.opts)
		tg.Close()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.opts, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tb.Name) {
			t.Errorf("%+v dedup=%v: %v, want %q naming the table", tc.opts, tc.dedup, err, tc.want)
		}
	}
	// After --drop-db the table was recreated with DEDUP.
	info, ok, err := plain.tableInfo(ctx, tb.Name)
	if err != nil || !ok || !info.dedup || !info.wal {
		t.Errorf("after --drop-db: %+v exists=%v err=%v, want a WAL table with DEDUP", info, ok, err)
	}
}

// openWriter opens a writer of tg, closed when the test ends.
func openWriter(t *testing.T, tg *Target) load.Writer {
	t.Helper()
	w, err := tg.NewWriter(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func newTargetOpts(t *testing.T, s qdb, dedup bool, opts load.PrepareOptions, tables ...*schema.Table) *Target {
	t.Helper()
	tg, err := New(Config{URL: s.http, PG: s.pg, Dedup: dedup})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if q, err := tg.withQuerier(context.Background()); err == nil {
			for _, tb := range tables {
				q.query(context.Background(), "DROP TABLE IF EXISTS "+quote(tb.Name))
			}
		}
		tg.Close()
	})
	opts.Tables = tables
	if err := tg.Prepare(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	return tg
}
