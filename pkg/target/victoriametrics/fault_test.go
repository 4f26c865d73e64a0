package victoriametrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// suiteTarget is a target writing to the server at proxy into db label
// db, for the shared suites.
func suiteTarget(db string) func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, Gzip: true, GzipLevel: 1, RequestTimeout: timeout}, Precision: "ns", DBName: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	}
}

// suiteRows counts, from the server's export, the samples of the suites'
// field v of table and their distinct (host, time).
func suiteRows(base, db string) func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
	return func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
		return vmtest.Rows(t, base, db, table+"_v")
	}
}

// TestKilledServer kills a private VictoriaMetrics with SIGKILL a fifth of
// the way into a load and starts it again half a second later. The server
// acknowledges rows it holds in memory (for up to a second, then in
// in-memory parts written to disk every -inmemoryDataFlushInterval, 5 s),
// so the kill may lose acknowledged rows: verification must then fail and
// say so, and pass only when the server holds every row. What the server
// holds is read from its export directly.
func TestKilledServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no server kill")
	}
	in := vmtest.StartInstance(t, "kill")
	const db, table, rows = "kill", "vm_killed", 100000
	p := loadtest.Proxy(t, in.URL)
	var b strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%s,host=h%d v=%d.5,n=%di %d\n", table, i%10, i, i, int64(1704067200000000000)+int64(i)*1e6)
	}
	path := writeFile(t, table+".ilp", b.String())
	stop := make(chan struct{})
	killed := make(chan error, 1)
	go func() {
		if !loadtest.AfterBytes(p, 512<<10, stop) {
			killed <- fmt.Errorf("the load ended before the server was killed")
			return
		}
		if err := in.Kill(); err != nil {
			killed <- err
			return
		}
		time.Sleep(500 * time.Millisecond)
		killed <- in.Start()
	}()
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + p.Addr()}, Gzip: false, RequestTimeout: 10 * time.Second}, Precision: "ns", DBName: db})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	cfg := loadtest.FaultConfig(path, 1000, 2)
	cfg.RetryTimeout = 3 * time.Minute
	cfg.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	cfg.Loader, cfg.Target = "load_victoriametrics", "victoriametrics"
	f := loadtest.RunLoad(t, cfg, tg)
	close(stop)
	if err := <-killed; err != nil {
		t.Fatalf("%v\n%s", err, f.Log)
	}
	held, keys := vmtest.Rows(t, in.URL, db, table+"_v")
	if f.Res == nil || f.Res.Verify == nil {
		t.Fatalf("no verification: %v\n%s", f.Err, f.Log)
	}
	if held != keys {
		t.Fatalf("the server holds %d samples of %s_v but %d distinct (host, time)", held, table, keys)
	}
	if f.Res.Rows != rows {
		t.Fatalf("%d rows acknowledged, want %d: %v\n%s", f.Res.Rows, rows, f.Err, f.Log)
	}
	switch {
	case held == rows && (!f.Res.Verify.OK || f.Err != nil):
		t.Fatalf("the server holds every row but the run failed: %v\n%s", f.Err, f.Log)
	case held < rows && (f.Res.Verify.OK || f.Err == nil || f.Res.Verify.Actual[table] != held):
		t.Fatalf("the server lost %d acknowledged rows but verification says ok %v, counted %d: %v\n%s", rows-held, f.Res.Verify.OK, f.Res.Verify.Actual[table], f.Err, f.Log)
	case held > rows:
		t.Fatalf("the server holds %d rows, more than the %d sent", held, rows)
	}
	t.Logf("%d retries; %d rows acknowledged, the server holds %d after the kill; verification ok=%v", f.Res.Retries, f.Res.Rows, held, f.Res.Verify.OK)
}
