package influx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
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
