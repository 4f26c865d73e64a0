package cnosdb

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/cost"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestFootprint loads N rows, then 2N into another database, through the
// runner with a settle wait: CnosDB flushes on COMPACT VNODE, and the
// settled size is above zero and grows with the rows.
func TestFootprint(t *testing.T) {
	var sizes [2]int64
	for i, rows := range []int{20000, 40000} {
		tg := realTarget(t, nil)
		path, _ := ilpFile(t, rows)
		var stderr bytes.Buffer
		cfg := runnerConfig(path, tg.cfg.DBName, &stderr)
		cfg.Cost = cost.Config{FootprintSettle: 20 * time.Second}
		res, err := runner.Run(context.Background(), cfg, tg)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		fp := res.Cost.Footprint
		if fp == nil || fp.NotMeasured != "" || !strings.HasPrefix(fp.Flush, "COMPACT VNODE ") || fp.SettledBytes <= 0 || !fp.Settled {
			t.Fatalf("footprint %+v\n%s", fp, stderr.String())
		}
		if !strings.Contains(fp.Method, "vnode_disk_storage") || fp.BytesPerRow <= 0 {
			t.Errorf("footprint %+v", fp)
		}
		sizes[i] = fp.SettledBytes
		t.Logf("%d rows: %d bytes after the load, %d settled (%s)", rows, fp.AfterLoadBytes, fp.SettledBytes, fp.Flush)
	}
	if sizes[1] <= sizes[0] {
		t.Errorf("2N rows take %d bytes, N rows %d", sizes[1], sizes[0])
	}
}

func TestVnodeStorage(t *testing.T) {
	body := []byte(`# HELP vnode_disk_storage_total disk storage of vnode
# TYPE vnode_disk_storage_total gauge
vnode_disk_storage_total{database="db1",node_id="1001",tenant="cnosdb",vnode_id="91"} 132187
vnode_disk_storage_total{database="db1",node_id="1001",tenant="cnosdb",vnode_id="12"} 5
vnode_disk_storage_total{database="db1",node_id="1001",tenant="other",vnode_id="7"} 99
vnode_disk_storage_total{database="db10",node_id="1001",tenant="cnosdb",vnode_id="8"} 99
vnode_cache_size_total{database="db1",node_id="1001",tenant="cnosdb",vnode_id="91"} 320
`)
	vs, err := vnodeStorage(body, "cnosdb", "db1")
	if err != nil || len(vs) != 2 || vs[0] != (vnode{"12", 5}) || vs[1] != (vnode{"91", 132187}) {
		t.Errorf("vnodeStorage = %v, %v", vs, err)
	}
}

func TestServerAddr(t *testing.T) {
	for url, want := range map[string]string{"http://127.0.0.1:8902": "127.0.0.1:8902", "https://c.example": "c.example:443"} {
		if got := (&Target{cfg: Config{Conn: httpwrite.Conn{URLs: []string{url}}}}).ServerAddr(); got != want {
			t.Errorf("%s: %q, want %q", url, got, want)
		}
	}
}

// A server holding many databases answers /metrics with megabytes: the
// vnodes of the load's database are still found (the body was cut at the
// client's 1 MiB default, and the footprint was "not measured").
func TestVnodesLargeMetrics(t *testing.T) {
	var body strings.Builder
	for i := 0; body.Len() < 3<<20; i++ {
		fmt.Fprintf(&body, "vnode_disk_storage_total{database=\"other%d\",node_id=\"1001\",tenant=\"cnosdb\",vnode_id=\"%d\"} 4096\n", i, i+100)
	}
	body.WriteString("vnode_disk_storage_total{database=\"db1\",node_id=\"1001\",tenant=\"cnosdb\",vnode_id=\"7\"} 132187\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body.String()))
	}))
	defer srv.Close()
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{srv.URL}, User: "root"}, DBName: "db1", Tenant: "cnosdb", Precision: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	vs, err := tg.vnodes(context.Background())
	if err != nil || len(vs) != 1 || vs[0] != (vnode{"7", 132187}) {
		t.Fatalf("vnodes = %v, %v", vs, err)
	}
}
