package influx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real InfluxDB 1.x, with its fault scenarios (faults: a timed-out request
// that still lands is overwritten by its re-send, a point cannot be stored
// twice; a line of the wrong field type is dropped by InfluxDB while it
// writes the rest of its batch, a partial write: the run goes on and fails
// at the end; the kill is an InfluxDB of the test's own) and its loader
// kills (resume: batches in doubt are sent again, and InfluxDB stores a
// point sent twice once).
func TestTargetSuite(t *testing.T) {
	base := influxURL(t)
	loadtest.TargetSuite{Loader: "load_influx", Upstream: base, New: faultTarget(uniqueDB(t)), Rows: pointRows, Values: "InfluxDB 1.x",
		Faults: &loadtest.FaultSuite{
			Refuse:      func(line string) string { return strings.Replace(line, " v=", ` v="oops",w=`, 1) },
			RefuseErr:   []string{"field type conflict", "rows rejected by the server"},
			RefusedRows: 4999,
			Private:     privateInflux,
		},
		Resume: &loadtest.ResumeSuite{
			Args: func(_ *testing.T, proxy, _, _ string) []string {
				return []string{"--urls", "http://" + proxy, "--precision", "n"}
			},
			Rows: func(t *testing.T, db, table string) (rows, keys int64) {
				tg := newFaultTarget(t, base, 10*time.Second)
				tg.cfg.DBName = db
				return pointRows(t, tg, table)
			},
		},
	}.Run(t, "suite")
}

// TestTargetSuiteV2 runs the conformance suite on the real InfluxDB 2.x
// (a bucket per target); its faults are TestV2FaultCutMidBatch's.
func TestTargetSuiteV2(t *testing.T) {
	base := influx2(t)
	loadtest.TargetSuite{Loader: "load_influx", Upstream: base.URLs[0], Rows: pointRows, Values: "InfluxDB 2.x",
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
	loadtest.TargetSuite{Loader: "load_influx", Upstream: r.URL, Values: "InfluxDB 3",
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
