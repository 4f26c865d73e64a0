package victoriametrics

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/query"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestQueryText compares the MetricsQL (or export) and the evaluations of
// querytest's queries (Queries and More, over its Sample rows) with
// testdata/queries.metricsql (-update rewrites it); a query refused is
// written as its error, which must wrap errors.ErrUnsupported
// (querytest.Text).
func TestQueryText(t *testing.T) {
	querytest.Text(t, filepath.Join("testdata", "queries.metricsql"), *update, func(q *query.Query) (string, error) {
		p, err := metricsQL(q, "db", time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, sp := range p.spans {
			at := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }
			if sp.step > 0 {
				fmt.Fprintf(&b, "range %s to %s step %dms\n", at(sp.from+sp.step), at(sp.to), sp.step)
			} else {
				fmt.Fprintf(&b, "at %s window %dms\n", at(sp.to), sp.to-sp.from)
			}
		}
		if p.export != "" {
			fmt.Fprintf(&b, "export %s\n", p.export)
		}
		if p.lastTime != "" {
			fmt.Fprintf(&b, "time: %s\n", p.lastTime)
		}
		for i, e := range p.exprs {
			fmt.Fprintf(&b, "%s: %s\n", q.Fields[i], e)
		}
		return b.String(), nil
	})
}

// TestSpans: a window cut inside its first and last buckets is evaluated
// as the cut first bucket, the full ones in one range, and the cut last;
// the full buckets that end after now are evaluated one by one.
func TestSpans(t *testing.T) {
	ms := func(s int64) time.Time { return time.UnixMilli(s).UTC() }
	for _, tc := range []struct {
		from, to, now int64
		want          []span
	}{
		{90_000, 330_000, 1e12, []span{{from: 90_000, to: 120_000, at: ms(60_000)}, {from: 120_000, to: 300_000, step: 60_000},
			{from: 300_000, to: 330_000, at: ms(300_000)}}},
		{90_000, 100_000, 1e12, []span{{from: 90_000, to: 100_000, at: ms(60_000)}}},
		{60_000, 180_000, 1e12, []span{{from: 60_000, to: 180_000, step: 60_000}}},
		{60_000, 300_000, 190_000, []span{{from: 60_000, to: 180_000, step: 60_000}, {from: 180_000, to: 240_000, at: ms(180_000)},
			{from: 240_000, to: 300_000, at: ms(240_000)}}},
		{60_000, 180_000, 10_000, []span{{from: 60_000, to: 120_000, at: ms(60_000)}, {from: 120_000, to: 180_000, at: ms(120_000)}}},
	} {
		if got := spans(tc.from, tc.to, time.Minute, tc.now); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("spans(%d, %d, 1m, now %d) = %v, want %v", tc.from, tc.to, tc.now, got, tc.want)
		}
	}
}
