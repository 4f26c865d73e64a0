package victoriametrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
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
// range answer leaves out the last 30 s of buckets).
func TestQueryRecent(t *testing.T) {
	base, db := vmtest.RealDB(t)
	tg, err := New(Config{URLs: []string{base}, Precision: "ms", DBName: db, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Truncate(time.Millisecond)
	var lines strings.Builder
	var points []query.Point
	for i := 1; i <= 40; i++ {
		at := now.Add(-time.Duration(i) * 500 * time.Millisecond)
		for _, host := range []string{"a", "b"} {
			v := float64(i*7%23) + float64(len(host))
			fmt.Fprintf(&lines, "recent,host=%s v=%g %d\n", host, v, at.UnixMilli())
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
	qs := []*query.Query{
		{Name: "recent-max", Table: "recent", Fields: []string{"v"}, Agg: query.Max, GroupBy: []string{"host"}, Bucket: 5 * time.Second,
			Start: start, End: query.BucketStart(now, 5*time.Second).Add(5 * time.Second)},
		{Name: "recent-last", Table: "recent", Fields: []string{"v"}, Agg: query.Last, GroupBy: []string{"host"},
			Start: start, End: query.BucketStart(now, 5*time.Second).Add(5 * time.Second)},
		{Name: "recent-count", Table: "recent", Fields: []string{"v"}, Agg: query.Count, Start: start, End: now.Add(time.Millisecond)},
	}
	for _, problem := range querytest.Check(ctx, qr, qs, map[string][]query.Point{"recent": points}, nil) {
		t.Error(problem)
	}
}
