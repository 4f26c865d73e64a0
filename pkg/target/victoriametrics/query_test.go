package victoriametrics

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// vmUnsupported are querytest.More's queries with a threshold and an
// aggregate that MetricsQL cannot state exactly (query.go): on another
// field, Min above, Last.
var vmUnsupported = []string{"max-filter-by-host-10m", "min-filter-same-field", "count-filter-by-region",
	"last-filter", "count-filter-iot", "last-filter-iot"}

// TestQuery loads querytest's cpu-only and iot files into the real
// VictoriaMetrics and checks every answer against query.Eval's.
func TestQuery(t *testing.T) {
	base, db := vmtest.RealDB(t)
	querytest.Suite{Loader: "load_victoriametrics", Upstream: base, New: suiteTarget(db), Unsupported: vmUnsupported}.Run(t, "q")
}

// TestQueryRecent: rows timed in the last seconds, acknowledged, are in
// the answers at once (force_flush; latency_offset, without which the
// range answer leaves out the last 30 s of buckets): querytest.CheckRecent,
// times in milliseconds.
func TestQueryRecent(t *testing.T) {
	base, db := vmtest.RealDB(t)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, RequestTimeout: 30 * time.Second}, Precision: "ms", DBName: db})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	querytest.CheckRecent(t, tg, time.Millisecond)
}
