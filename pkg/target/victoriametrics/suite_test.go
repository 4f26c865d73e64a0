package victoriametrics

import (
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/load"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real VictoriaMetrics; its faults are TestFaults' and TestKilledServer's.
func TestTargetSuite(t *testing.T) {
	base, db := vmtest.RealDB(t)
	loadtest.TargetSuite{Loader: "load_victoriametrics", Upstream: base, New: faultTarget(db), Rows: faultRows(base, db)}.Run(t, "suite")
}

// faultTarget makes the suites' targets: database db through proxy, gzip.
func faultTarget(db string) loadtest.NewFunc {
	return func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{URLs: []string{"http://" + proxy}, Precision: "ns", DBName: db, Gzip: true, GzipLevel: 1, RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	}
}

// faultRows reads the samples of a table's field v (the metric <table>_v)
// from the server's export directly.
func faultRows(base, db string) loadtest.RowsFunc {
	return func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
		return vmtest.Rows(t, base, db, table+"_v")
	}
}
