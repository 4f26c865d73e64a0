package clickhouse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// TestFaults cuts the load's connections mid-batch and refuses new ones for a while
// (internal/faultproxy between the loader and the real server), on rows a second apart,
// which every server keeps: each load must end with every row verified and held once (a
// re-sent batch is stored once in a ReplacingMergeTree). The conformance suite's fault
// scenarios do the same on servers with DateTime64.
func TestFaults(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	lines := func(t *testing.T, table string, rows int) string {
		var b strings.Builder
		for i := 0; i < rows; i++ {
			fmt.Fprintf(&b, "%s,host=h%d v=%d.5,n=%di %d\n", table, i%10, i, i, int64(1704067200000000000)+int64(i)*1e9)
		}
		path := filepath.Join(t.TempDir(), table+".ilp")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	run := func(t *testing.T, table string, fault func(p *faultproxy.Proxy, stop chan struct{})) (loadtest.Run, faultproxy.Stats) {
		p := loadtest.Proxy(t, addr)
		path := lines(t, table, 40000)
		tg, err := New(Config{Addr: p.Addr(), DBName: db, Dedup: true, RequestTimeout: 10 * time.Second, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		cfg := loadtest.FaultConfig(path, 500, 2)
		cfg.Prepare = load.PrepareOptions{DBName: db, CreateDB: true}
		cfg.Loader, cfg.Target = "load_clickhouse", "clickhouse"
		stop := make(chan struct{})
		go fault(p, stop)
		r := loadtest.RunLoad(t, cfg, tg)
		close(stop)
		r.Exact(t, 40000)
		if n, keys := clickhousetest.Rows(t, addr, db, table); n != 40000 || keys != 40000 {
			t.Fatalf("the table holds %d rows, %d distinct, want 40000", n, keys)
		}
		return r, p.Stats()
	}
	t.Run("cut mid-batch", func(t *testing.T) {
		r, st := run(t, "cut", func(p *faultproxy.Proxy, stop chan struct{}) {
			if !loadtest.AfterBytes(p, 64<<10, stop) {
				return
			}
			p.CutAfter(4<<10, 5)
			p.CutAll()
		})
		if st.Cuts == 0 || r.Res.Retries == 0 {
			t.Errorf("cuts %d, retries %d", st.Cuts, r.Res.Retries)
		}
	})
	t.Run("refused connections", func(t *testing.T) {
		r, st := run(t, "refused", func(p *faultproxy.Proxy, stop chan struct{}) {
			if !loadtest.AfterBytes(p, 64<<10, stop) {
				return
			}
			p.Refuse(true)
			p.CutAll()
			for deadline := time.Now().Add(10 * time.Second); p.Stats().Refused == 0 && time.Now().Before(deadline); {
				select {
				case <-stop:
					p.Refuse(false)
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			time.Sleep(300 * time.Millisecond)
			p.Refuse(false)
		})
		if st.Refused == 0 || r.Res.Retries == 0 {
			t.Errorf("refused %d, retries %d", st.Refused, r.Res.Retries)
		}
	})
}
