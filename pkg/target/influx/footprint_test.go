package influx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// footprints loads n and 2n rows into two fresh databases (or buckets)
// made by mk, waits wait, and returns their footprints.
func footprints(t *testing.T, n int, wait time.Duration, mk func(suffix string) *Target) [2]load.Size {
	t.Helper()
	var tgs [2]*Target
	for i, rows := range []int{n, 2 * n} {
		tgs[i] = mk([]string{"_n", "_2n"}[i])
		batches := genBatches(rows, 1000, i)
		if acked, _ := writeAll(t, tgs[i], batches, 2, time.Minute); acked != int64(rows) {
			t.Fatalf("acknowledged %d of %d rows", acked, rows)
		}
	}
	time.Sleep(wait)
	var out [2]load.Size
	for i, tg := range tgs {
		sz, err := tg.Footprint(context.Background(), []string{"cpu", "mem"})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = sz
	}
	t.Logf("%d rows: %d bytes; %d rows: %d bytes (%s)", n, out[0].Bytes, 2*n, out[1].Bytes, out[0].Method)
	if out[0].Bytes <= 0 || out[1].Bytes <= out[0].Bytes {
		t.Errorf("footprints %+v (N) and %+v (2N): want above zero and growing", out[0], out[1])
	}
	return out
}

// TestIntegrationFootprint: InfluxDB 1.x SHOW STATS shard diskBytes of the
// database grows with the rows.
func TestIntegrationFootprint(t *testing.T) {
	url := influxURL(t)
	base := uniqueDB(t)
	sz := footprints(t, 5000, 0, func(suffix string) *Target {
		return newTarget(t, url, Config{DBName: base + suffix})
	})
	if !strings.Contains(sz[0].Method, "SHOW STATS shard diskBytes") || !strings.Contains(sz[0].Method, base+"_n") {
		t.Errorf("method %q", sz[0].Method)
	}
	// A database without shards (nothing written) has no size to report.
	empty := newTarget(t, url, Config{DBName: base + "_empty"})
	if _, err := empty.Footprint(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no shard") {
		t.Errorf("empty database: %v", err)
	}
}

// TestV2Footprint: InfluxDB 2.x storage_shard_disk_size of the bucket
// grows with the rows. The server refreshes the gauge every 10 s: the test
// waits for a refresh after the writes.
func TestV2Footprint(t *testing.T) {
	cfg := influx2(t)
	base := uniqueDB(t)
	sz := footprints(t, 5000, v2MetricInterval+time.Second, func(suffix string) *Target {
		c := cfg
		c.DBName = base + suffix
		tg, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Prepare(context.Background(), load.PrepareOptions{DBName: c.DBName, CreateDB: true, DropDB: true}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			tg.Prepare(context.Background(), load.PrepareOptions{DBName: c.DBName, DropDB: true})
			tg.Close()
		})
		return tg
	})
	if sz[0].Refresh != v2MetricInterval || !strings.Contains(sz[0].Method, "storage_shard_disk_size") {
		t.Errorf("size %+v", sz[0])
	}
}

func TestShardDiskSize(t *testing.T) {
	body := []byte(`# HELP storage_shard_disk_size Gauge of the disk size for the shard
# TYPE storage_shard_disk_size gauge
storage_shard_disk_size{bucket="0a1b",engine="tsm1",id="1",path="/e/data/0a1b/autogen/1",walPath="/e/wal/0a1b/autogen/1"} 1234
storage_shard_disk_size{bucket="0a1b",engine="tsm1",id="2",path="/e/data/0a1b/autogen/2",walPath="/e/wal/0a1b/autogen/2"} 1.5e+06
storage_shard_disk_size{bucket="ffff",engine="tsm1",id="3",path="/e/data/ffff/autogen/3",walPath="/e/wal/ffff/autogen/3"} 99
storage_shard_series{bucket="0a1b",engine="tsm1",id="1",path="x",walPath="y"} 7
`)
	n, shards, err := shardDiskSize(body, "0a1b")
	if err != nil || n != 1234+1500000 || shards != 2 {
		t.Errorf("shardDiskSize = %d, %d, %v", n, shards, err)
	}
	if n, shards, err := shardDiskSize(body, "0a1"); err != nil || n != 0 || shards != 0 {
		t.Errorf("a prefix of an id matched: %d, %d, %v", n, shards, err)
	}
	if _, _, err := shardDiskSize([]byte(`storage_shard_disk_size{bucket="0a1b"} x`), "0a1b"); err == nil {
		t.Error("a value that is not a number accepted")
	}
}

func TestServerAddr(t *testing.T) {
	for url, want := range map[string]string{"http://127.0.0.1:8086": "127.0.0.1:8086", "https://influx.example": "influx.example:443", "http://[::1]:8087/": "[::1]:8087"} {
		if got := (&Target{cfg: Config{Conn: httpwrite.Conn{URLs: []string{url}}}}).ServerAddr(); got != want {
			t.Errorf("%s: %q, want %q", url, got, want)
		}
	}
}
