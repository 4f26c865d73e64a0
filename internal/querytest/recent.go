package querytest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// CheckRecent writes rows timed in the last 20 seconds (two hosts, a row
// each every half second, table "recent") through tg's writer, in line
// protocol with times in unit (time.Nanosecond, time.Millisecond, ...),
// and checks that its querier's answers hold them at once, the bucket
// holding now included: Max per 5 s bucket by host, Last by host, Count.
// tg is prepared (its database created) by the caller.
func CheckRecent(t *testing.T, tg load.Target, unit time.Duration) {
	t.Helper()
	ctx := context.Background()
	if tg.Hooks().NewQuerier == nil {
		t.Fatal("the target declares no NewQuerier")
	}
	now := time.Now().Truncate(time.Millisecond)
	var lines strings.Builder
	var points []query.Point
	for i := 1; i <= 40; i++ {
		at := now.Add(-time.Duration(i) * 500 * time.Millisecond)
		for _, host := range []string{"a", "b"} {
			v := float64(i*7%23) + float64(len(host))
			fmt.Fprintf(&lines, "recent,host=%s v=%g %d\n", host, v, at.UnixNano()/int64(unit))
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
	qr, err := tg.Hooks().NewQuerier(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer qr.Close()
	start := query.BucketStart(now.Add(-30*time.Second), 5*time.Second)
	end := query.BucketStart(now, 5*time.Second).Add(5 * time.Second)
	qs := []*query.Query{
		{Name: "recent-max", Table: "recent", Fields: []string{"v"}, Agg: query.Max, GroupBy: []string{"host"}, Bucket: 5 * time.Second, Start: start, End: end},
		{Name: "recent-last", Table: "recent", Fields: []string{"v"}, Agg: query.Last, GroupBy: []string{"host"}, Start: start, End: end},
		{Name: "recent-count", Table: "recent", Fields: []string{"v"}, Agg: query.Count, Start: start, End: now.Add(time.Millisecond)},
	}
	for _, problem := range Check(ctx, qr, qs, map[string][]query.Point{"recent": points}, nil) {
		t.Error(problem)
	}
}
