package influx

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real InfluxDB 1.x; its faults and resumes are TestFaults' and
// TestResumeAfterLoaderKill's.
func TestTargetSuite(t *testing.T) {
	loadtest.TargetSuite{Loader: "load_influx", Upstream: influxURL(t), New: faultTarget(uniqueDB(t)), Rows: pointRows}.Run(t, "suite")
}

// TestTargetSuiteV2 runs the conformance suite on the real InfluxDB 2.x
// (a bucket per target); its faults are TestV2FaultCutMidBatch's.
func TestTargetSuiteV2(t *testing.T) {
	base := influx2(t)
	loadtest.TargetSuite{Loader: "load_influx", Upstream: base.URLs[0], Rows: pointRows,
		New: func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			cfg := base
			cfg.URLs, cfg.RequestTimeout = []string{"http://" + addr}, timeout
			db := uniqueDB(t)
			tg, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				tg.Prepare(context.Background(), load.PrepareOptions{DBName: db, DropDB: true}) // drops the bucket
				tg.Close()
			})
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		}}.Run(t, "suite")
}

// TestTargetSuiteV3 runs the conformance suite on the real InfluxDB 3
// (a database per target, durable writes); its faults are TestV3Faults'
// and its server restart TestV3ServerRestart's.
func TestTargetSuiteV3(t *testing.T) {
	r := influx3test.RealServer(t)
	loadtest.TargetSuite{Loader: "load_influx", Upstream: r.URL,
		New: func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			db := influx3test.UniqueDB(t)
			r.DropAtEnd(t, db)
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + addr}, Gzip: true, GzipLevel: 1, RequestTimeout: timeout}, API: APIv3, Precision: "n", Token: r.Token})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, tg load.Target, table string) (rows, keys int64) {
			n := settledCount(t, tg, table) // a point's series and time are its key
			return n, n
		}}.Run(t, "suite")
}
