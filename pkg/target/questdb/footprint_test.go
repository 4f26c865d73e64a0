package questdb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// hourlyBatch is n rows of table an hour apart (a day partition per 24
// rows), so that a table of 2n rows takes more partitions than one of n.
func hourlyBatch(table string, n int) *load.Batch {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s,host=h%d,region=r%d v=%d.5,n=%di %d\n", table, i%7, i%3, i, i, int64(1704067200000000000)+int64(i)*3600e9)
	}
	return &load.Batch{Format: format.ILP, Data: []byte(b.String()), Rows: n, Metrics: 2 * n,
		Source: "gen.ilp", FirstLine: 1, FirstRecord: 1, Seq: 1, Tables: []load.TableRows{{Name: table, Rows: int64(n)}}}
}

// TestIntegrationFootprint loads N rows into one table and 2N into
// another: each has a size above zero, the second a larger one.
func TestIntegrationFootprint(t *testing.T) {
	s := server(t)
	ctx := context.Background()
	a, b := uniqueName(t, "fp_n"), uniqueName(t, "fp_2n")
	tg := newTarget(t, s, HTTP, false, testTable(a), testTable(b))
	const n = 240 // 10 days
	w := openWriter(t, tg)
	for _, tc := range []struct {
		table string
		rows  int
	}{{a, n}, {b, 2 * n}} {
		if _, err := w.Write(ctx, hourlyBatch(tc.table, tc.rows)); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := tg.Count(ctx, []string{a, b}) // waits for the WAL to be applied
	if err != nil || counts[a] != n || counts[b] != 2*n {
		t.Fatalf("counts %v, %v", counts, err)
	}
	sa, err := tg.Footprint(ctx, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := tg.Footprint(ctx, []string{b})
	if err != nil {
		t.Fatal(err)
	}
	both, err := tg.Footprint(ctx, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows: %d bytes; %d rows: %d bytes (%s)", n, sa.Bytes, 2*n, sb.Bytes, sa.Method)
	if sa.Bytes <= 0 || sb.Bytes <= sa.Bytes || both.Bytes != sa.Bytes+sb.Bytes || sa.Method != footprintMethod || sa.Mark != results.MarkPreallocated {
		t.Errorf("footprints %+v (N), %+v (2N), %+v (both)", sa, sb, both)
	}
	if _, err := tg.Footprint(ctx, []string{a + "_absent"}); err == nil || !strings.Contains(err.Error(), "does not list") {
		t.Errorf("a missing table: %v", err)
	}
}

func TestServerAddr(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://127.0.0.1:9000", PG: "postgres://a@db:8812/qdb"}, "127.0.0.1:9000"},
		{Config{URL: "https://qdb.example"}, "qdb.example:443"},
		{Config{PG: "postgres://a@[::1]:8812/qdb", TCPAddr: "x:9009"}, "[::1]:8812"},
		{Config{TCPAddr: "h:9009"}, "h:9009"},
	} {
		tg := &Target{cfg: tc.cfg}
		if got := tg.ServerAddr(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.cfg, got, tc.want)
		}
	}
}
