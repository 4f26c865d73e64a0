package influx

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestTSBSQueriesV1 runs a query set of TSBS's catalogue against the real
// InfluxDB 1.x in InfluxQL with every answer checked
// (internal/querytest.RunTSBS): every type, the two with a Change too.
func TestTSBSQueriesV1(t *testing.T) {
	querytest.Suite{Loader: "load_influx", Upstream: influxURL(t), New: faultTarget(uniqueDB(t))}.RunTSBS(t, "b1")
}

// TestTSBSQueriesV2 is TestTSBSQueriesV1 on the real InfluxDB 2.x, in
// Flux, which declares the types with a having or rollup stage
// unsupported (querytest.Staged).
func TestTSBSQueriesV2(t *testing.T) {
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
	}, Unsupported: querytest.Staged}.RunTSBS(t, "b2")
}

// TestTSBSQueriesV3 is TestTSBSQueriesV1 on the real InfluxDB 3, in its
// SQL (DataFusion's, as CnosDB's).
func TestTSBSQueriesV3(t *testing.T) {
	_, at := v3Real(t)
	querytest.Suite{Loader: "load_influx", Upstream: at.url, New: func(t *testing.T, _ string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{at.url}, RequestTimeout: timeout}, Precision: "n", Token: at.token})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return &v3Only{Target: tg}, load.PrepareOptions{DBName: at.db, CreateDB: true}
	}}.RunTSBS(t, "b3")
}
