package influx

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
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
// now included.
func TestQueryRecentV1(t *testing.T) {
	recent(t, newTarget(t, influxURL(t), Config{}))
}

func TestQueryRecentV2(t *testing.T) {
	recent(t, newV2Target(t, influx2(t)))
}

func recent(t *testing.T, tg *Target) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	var lines strings.Builder
	var points []query.Point
	for i := 1; i <= 40; i++ {
		at := now.Add(-time.Duration(i) * 500 * time.Millisecond)
		for _, host := range []string{"a", "b"} {
			v := float64(i*7%23) + float64(len(host))
			fmt.Fprintf(&lines, "recent,host=%s v=%g %d\n", host, v, at.UnixNano())
			points = append(points, query.Point{Time: at, Tags: map[string]string{"host": host}, Fields: map[string]float64{"v": v}})
		}
	}
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctx, &load.Batch{Format: format.ILP, Data: []byte(lines.String()), Rows: len(points), FirstLine: 1}); err != nil {
		t.Fatal(err)
	}
	qr, err := tg.NewQuerier(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := query.BucketStart(now.Add(-30*time.Second), 5*time.Second)
	end := query.BucketStart(now, 5*time.Second).Add(5 * time.Second)
	qs := []*query.Query{
		{Name: "recent-max", Table: "recent", Fields: []string{"v"}, Agg: query.Max, GroupBy: []string{"host"}, Bucket: 5 * time.Second, Start: start, End: end},
		{Name: "recent-last", Table: "recent", Fields: []string{"v"}, Agg: query.Last, GroupBy: []string{"host"}, Start: start, End: end},
		{Name: "recent-count", Table: "recent", Fields: []string{"v"}, Agg: query.Count, Start: start, End: now.Add(time.Millisecond)},
	}
	for _, problem := range querytest.Check(ctx, qr, qs, map[string][]query.Point{"recent": points}, nil) {
		t.Error(problem)
	}
}
