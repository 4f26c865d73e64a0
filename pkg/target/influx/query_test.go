package influx

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
)

// TestQueryV1 loads querytest's cpu-only and iot files into the real
// InfluxDB 1.x and checks every InfluxQL answer against query.Eval's
// (querytest's Queries and More: thresholds under every aggregate, Last
// per bucket of several fields, Rows without a limit, no groups at all).
func TestQueryV1(t *testing.T) {
	querytest.Suite{Loader: "load_influx", Upstream: influxURL(t), New: faultTarget(uniqueDB(t)),
		// InfluxQL's last() is per field: the newest row of a bucket with
		// NULL fields cannot be stated (query_influxql.go).
		Unsupported: []string{"last2-per-bucket", "last2-per-bucket-iot", "last7-per-bucket-iot"}}.Run(t, "q1")
}

// TestQueryV2 is TestQueryV1 on the real InfluxDB 2.x, in Flux.
func TestQueryV2(t *testing.T) {
	cfg := influx2(t)
	cfg.DBName = uniqueDB(t)
	querytest.Suite{Loader: "load_influx", Upstream: cfg.URLs[0], New: func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		c := cfg
		c.URLs = []string{"http://" + addr}
		c.RequestTimeout = timeout
		tg, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			tg.Prepare(context.Background(), load.PrepareOptions{DBName: c.DBName, DropDB: true})
			tg.Close()
		})
		return tg, load.PrepareOptions{DBName: c.DBName, CreateDB: true, DropDB: true}
	}}.Run(t, "q2")
}

// TestQueryRecentV1 and TestQueryRecentV2: rows timed in the last
// seconds, acknowledged, are in the answers at once, the bucket holding
// now included (querytest.CheckRecent).
func TestQueryRecentV1(t *testing.T) {
	querytest.CheckRecent(t, newTarget(t, influxURL(t), Config{}), time.Nanosecond)
}

func TestQueryRecentV2(t *testing.T) {
	querytest.CheckRecent(t, newV2Target(t, influx2(t)), time.Nanosecond)
}
