package questdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Fault injection through internal/faultproxy in front of ILP/HTTP, the
// whole path (runner.Run, this target, the real QuestDB of
// scripts/start_questdb.sh; DDL and counts over PG wire, not proxied).
// Retryable faults must end with the exact count verified and, thanks to
// DEDUP, no duplicate; the non-retryable one with an error naming the
// cause and a results file marked failed whose rows equal what the table
// holds. A server killed and restarted mid-load is
// TestIntegrationKillRestartHTTP (integration_test.go).

// faultFile writes rows of table (a unique (timestamp, host) per row).
func faultFile(t *testing.T, table string, rows int, edit func(i int, line string) string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < rows; i++ {
		line := fmt.Sprintf("%s,host=h%d,region=r%d v=%d.5,n=%di %d\n", table, i%7, i%7%3, i, i, int64(1704067200000000000)+int64(i)*1e6)
		if edit != nil {
			line = edit(i, line)
		}
		b.WriteString(line)
	}
	path := filepath.Join(t.TempDir(), table+".ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func proxied(t *testing.T, s qdb) (*faultproxy.Proxy, string) {
	t.Helper()
	p := loadtest.Proxy(t, s.http)
	return p, "http://" + p.Addr()
}

type faultRun struct {
	loadtest.Run
	tg    *Target
	table string
}

// runFault loads path (rows of table) over httpURL with DEDUP tables.
func runFault(t *testing.T, s qdb, httpURL, table, path string, timeout time.Duration, batch, workers int) faultRun {
	t.Helper()
	tg, err := New(Config{Transport: HTTP, URL: httpURL, PG: s.pg, Dedup: true, WALTimeout: time.Minute,
		RequestTimeout: timeout, MinThroughput: 1 << 30,
		Lookup: func(name string) *schema.Table {
			if name == table {
				return testTable(name)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if q, err := tg.withQuerier(context.Background()); err == nil {
			q.query(context.Background(), "DROP TABLE IF EXISTS "+quote(table))
		}
		tg.Close()
	})
	cfg := loadtest.FaultConfig(path, batch, workers)
	cfg.Prepare = load.PrepareOptions{CreateDB: true, DropDB: true}
	cfg.Loader, cfg.Target = "load_questdb", "questdb"
	return faultRun{Run: loadtest.RunLoad(t, cfg, tg), tg: tg, table: table}
}

// dbRows counts the table's rows (after the WAL is applied) and its
// distinct (timestamp, host) keys.
func (f faultRun) dbRows(t *testing.T) (rows, keys int64) {
	t.Helper()
	ctx := context.Background()
	counts, err := f.tg.Count(ctx, []string{f.table})
	if err != nil {
		t.Fatal(err)
	}
	q, err := f.tg.withQuerier(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := q.query(ctx, "SELECT count() FROM (SELECT DISTINCT timestamp, host FROM "+quote(f.table)+")")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ = strconv.ParseInt(out[0][0], 10, 64)
	return counts[f.table], keys
}

func (f faultRun) exact(t *testing.T, rows int64) {
	t.Helper()
	f.Exact(t, rows)
	if n, keys := f.dbRows(t); n != rows || keys != rows {
		t.Fatalf("table holds %d rows, %d distinct, want %d", n, keys, rows)
	}
}

// TestFaultCutMidBatch cuts the next connections after 4 KiB of request,
// then every open connection, mid-load.
func TestFaultCutMidBatch(t *testing.T) {
	s := server(t)
	p, u := proxied(t, s)
	table := uniqueName("fault_cut")
	path := faultFile(t, table, 40000, nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if !loadtest.AfterBytes(p, 200<<10, stop) {
			return
		}
		p.CutAfter(4<<10, 6)
		p.CutAll()
		if loadtest.AfterBytes(p, 1<<20, stop) {
			p.CutAll()
		}
	}()
	f := runFault(t, s, u, table, path, 10*time.Second, 1000, 2)
	f.exact(t, 40000)
	if st := p.Stats(); st.Cuts < 6 || f.Res.Retries == 0 {
		t.Errorf("cuts %d retries %d", st.Cuts, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

// TestFaultStall stalls the server for 3 s, past the 1 s request timeout:
// the stalled requests may still commit after the stall; DEDUP makes the
// re-sends overwrite them.
func TestFaultStall(t *testing.T) {
	s := server(t)
	p, u := proxied(t, s)
	table := uniqueName("fault_stall")
	path := faultFile(t, table, 30000, nil)
	p.SetLatency(2 * time.Millisecond)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if !loadtest.AfterBytes(p, 200<<10, stop) {
			return
		}
		p.Stall(true)
		time.Sleep(3 * time.Second)
		p.Stall(false)
	}()
	f := runFault(t, s, u, table, path, time.Second, 500, 2)
	f.exact(t, 30000)
	if f.Res.Retries == 0 || !strings.Contains(f.Log, "deadline exceeded") {
		t.Errorf("retries %d; no timeout reported:\n%s", f.Res.Retries, f.Log)
	}
}

// TestFaultRefuseWindows makes the server unreachable four times (open
// connections cut, new ones refused for 300 ms): network errors, retried.
func TestFaultRefuseWindows(t *testing.T) {
	s := server(t)
	p, u := proxied(t, s)
	table := uniqueName("fault_refuse")
	path := faultFile(t, table, 40000, nil)
	p.SetLatency(time.Millisecond)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := int64(1); i <= 4; i++ {
			if !loadtest.AfterBytes(p, i*300<<10, stop) {
				return
			}
			p.Refuse(true)
			p.CutAll()
			time.Sleep(300 * time.Millisecond)
			p.Refuse(false)
		}
	}()
	f := runFault(t, s, u, table, path, 10*time.Second, 500, 2)
	f.exact(t, 40000)
	if st := p.Stats(); st.Refused == 0 || f.Res.Retries == 0 {
		t.Errorf("refused %d retries %d", st.Refused, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

// TestFaultCastError: a batch in the middle of the input has a string where
// the table has a DOUBLE; the server refuses it (400) and rolls it back;
// the run stops naming the line, counting exactly the batches before it.
func TestFaultCastError(t *testing.T) {
	s := server(t)
	table := uniqueName("fault_cast")
	path := faultFile(t, table, 5000, func(i int, line string) string {
		if i == 3456 {
			return strings.Replace(line, " v=", ` v="oops",w=`, 1)
		}
		return line
	})
	f := runFault(t, s, s.http, table, path, 10*time.Second, 500, 1)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "line 3457") || !strings.Contains(f.Err.Error(), "400") {
		t.Fatalf("err = %v, want a 400 naming line 3457\n%s", f.Err, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	n, keys := f.dbRows(t)
	if r.Status != load.StatusFailed || r.Rows != 3000 || n != r.Rows || keys != n || r.Retries != 0 {
		t.Fatalf("status %s rows %d retries %d; table holds %d (%d distinct), want 3000", r.Status, r.Rows, r.Retries, n, keys)
	}
}
