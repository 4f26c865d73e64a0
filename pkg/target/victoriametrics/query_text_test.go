package victoriametrics

import (
	"errors"
	"flag"
	"fmt"
	"os"
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
// written as its error, which must wrap errors.ErrUnsupported.
func TestQueryText(t *testing.T) {
	points := querytest.Sample("")
	var qs []*query.Query
	for _, uc := range []string{"cpu-only", "iot"} {
		qs = append(qs, querytest.Queries(uc, "", points)...)
		qs = append(qs, querytest.More(uc, "", points)...)
	}
	var b strings.Builder
	for _, q := range qs {
		fmt.Fprintf(&b, "# %s\n", q)
		p, err := metricsQL(q, "db")
		if err != nil {
			if !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("%s: %v", q.Name, err)
			}
			fmt.Fprintf(&b, "unsupported: %v\n\n", err)
			continue
		}
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
		b.WriteString("\n")
	}
	golden(t, filepath.Join("testdata", "queries.metricsql"), b.String())
}

// TestSpans: a window cut inside its first and last buckets is evaluated
// as the cut first bucket, the full ones in one range, and the cut last.
func TestSpans(t *testing.T) {
	got := spans(90_000, 330_000, time.Minute)
	want := []span{{from: 90_000, to: 120_000, at: time.UnixMilli(60_000).UTC()}, {from: 120_000, to: 300_000, step: 60_000},
		{from: 300_000, to: 330_000, at: time.UnixMilli(300_000).UTC()}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("spans = %v, want %v", got, want)
	}
	if got := spans(90_000, 100_000, time.Minute); len(got) != 1 || got[0].from != 90_000 || got[0].to != 100_000 || !got[0].at.Equal(time.UnixMilli(60_000)) {
		t.Errorf("a window inside one bucket: %v", got)
	}
	if got := spans(60_000, 180_000, time.Minute); len(got) != 1 || got[0].step != 60_000 {
		t.Errorf("an aligned window: %v", got)
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what the queries make now (go test -update rewrites it):\n%s", path, got)
	}
}
