package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// influxURL is the InfluxDB of scripts/start_influxdb.sh (skip when it is
// unreachable and CI is unset).
func influxURL(t *testing.T) string {
	return loadtest.HTTPServer(t, "InfluxDB", "TSLOAD_INFLUX_URL", "http://127.0.0.1:8086", "scripts/start_influxdb.sh")
}

// TestSignal interrupts a real load (slowed by 15 ms per forwarded chunk
// through a fault proxy, so it would take several seconds) with SIGINT and
// SIGTERM (loadtest.SignalSuite); it must stop within 7 s.
func TestSignal(t *testing.T) {
	url := influxURL(t)
	target := func(db string) *influx.Target {
		tg, err := influx.New(influx.Config{Conn: httpwrite.Conn{URLs: []string{url}}, Precision: "n", DBName: db})
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	loadtest.SignalSuite{
		Loader:   "load_influx",
		Upstream: strings.TrimPrefix(url, "http://"),
		Latency:  15 * time.Millisecond,
		Rows:     100000,
		Line: func(i int64) string {
			return fmt.Sprintf("cpu,host=h%d,rack=r%d usage_user=%d.5,usage_idle=%di %d", i%50, i%7, i, i%100, 1600000000000000000+i/50*1e9)
		},
		Args: func(proxy, _ string) []string { return []string{"--urls", "http://" + proxy} },
		Count: func(db string) (int64, error) {
			tg := target(db)
			defer tg.Close()
			got, err := tg.Count(context.Background(), []string{"cpu"})
			return got["cpu"], err
		},
		Drop: func(db string) {
			tg := target(db)
			defer tg.Close()
			tg.Query(context.Background(), "", `DROP DATABASE "`+db+`"`)
		},
		MaxStop: 7 * time.Second,
	}.Run(t)
}
