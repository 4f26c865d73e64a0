package influx

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// TestQueryV1 loads querytest's cpu-only and iot files into the real
// InfluxDB 1.x and checks every InfluxQL answer against query.Eval's.
func TestQueryV1(t *testing.T) {
	querytest.Suite{Loader: "load_influx", Upstream: influxURL(t), New: faultTarget(uniqueDB(t))}.Run(t, "q1")
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

// TestQueryV1More and TestQueryV2More check the queries querytest does not
// ask: thresholds under every aggregate, Last per bucket of several fields
// (iot's NULL fields make the newest row's differ from each field's
// newest value), Rows without a limit, no groups at all.
func TestQueryV1More(t *testing.T) {
	moreQueries(t, faultTarget(uniqueDB(t)), influxURL(t), "q1m", "last2-per-bucket", "last2-per-bucket-iot", "last7-per-bucket-iot")
}

func TestQueryV2More(t *testing.T) {
	cfg := influx2(t)
	cfg.DBName = uniqueDB(t)
	moreQueries(t, func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		c := cfg
		c.URLs = []string{"http://" + addr}
		tg, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			tg.Prepare(context.Background(), load.PrepareOptions{DBName: c.DBName, DropDB: true})
			tg.Close()
		})
		return tg, load.PrepareOptions{DBName: c.DBName, CreateDB: true, DropDB: true}
	}, cfg.URLs[0], "q2m")
}

func moreQueries(t *testing.T, newTarget loadtest.NewFunc, upstream, prefix string, unsupported ...string) {
	for _, uc := range []string{"cpu-only", "iot"} {
		t.Run(uc, func(t *testing.T) {
			p := prefix + "_" + strings.ReplaceAll(uc, "-", "") + "_"
			path, rows := querytest.Generate(t, uc)
			tg, prep := newTarget(t, strings.TrimPrefix(upstream, "http://"), 30*time.Second)
			defer tg.Close()
			cfg := loadtest.FaultConfig(path, 1000, 2)
			cfg.TablePrefix, cfg.Prepare, cfg.Loader, cfg.Target = p, prep, "load_influx", "influx"
			if r := loadtest.RunLoad(t, cfg, tg); r.Err != nil {
				t.Fatalf("load of %d rows: %v\n%s", rows, r.Err, r.Log)
			}
			points, err := querytest.Points(path, p)
			if err != nil {
				t.Fatal(err)
			}
			qr, err := tg.Hooks().NewQuerier(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			defer qr.Close()
			for _, problem := range querytest.Check(context.Background(), qr, querytest.More(uc, p, points), points, unsupported) {
				t.Error(problem)
			}
		})
	}
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
