package loadtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/loadcli"
)

// QuestDBLoop runs load_questdb (spec) with --loop --duration 2s --rate
// 20k over a file of 4,000 rows into the real QuestDB at httpURL (table
// named table, dropped by the caller's DropQuestDBTables): the run must
// verify exactly what it sent, read several passes, stop at the
// duration, and leave the table holding as many distinct (host,
// timestamp) as rows: no pass overwrote or duplicated another.
func QuestDBLoop(t *testing.T, spec loadcli.Spec, httpURL, pg, table string) {
	res, r := pacedCLI(t, spec, []string{"--http-url", httpURL, "--pg", pg}, RateLines(t, table, 4000),
		"--loop", "--duration", "2s", "--rate", "20k")
	lp := res.Loop
	if lp == nil || !lp.Replay || !lp.Stopped || lp.Passes < 3 || lp.Span != 3999e6+1000 || res.Rows != res.RowsRead || res.Rows <= 8000 {
		t.Fatalf("loop %+v, rows %d read %d\n%s", lp, res.Rows, res.RowsRead, r.Stderr)
	}
	if res.Seconds < 2 {
		t.Errorf("ran %.2fs", res.Seconds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out struct {
		Dataset [][]float64 `json:"dataset"`
	}
	q := fmt.Sprintf(`SELECT count() FROM (SELECT DISTINCT host, timestamp FROM "%s")`, strings.ReplaceAll(table, `"`, ``))
	if err := questdbExec(ctx, httpURL, q, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Dataset) != 1 || int64(out.Dataset[0][0]) != res.Rows {
		t.Fatalf("%v distinct (host, timestamp), %d rows loaded", out.Dataset, res.Rows)
	}
	t.Logf("%d passes, %d rows in %.2fs, offered %.0f achieved %.0f rows/s", lp.Passes, res.Rows, res.Seconds, res.Pace.OfferedRowsPerSec, res.Pace.AchievedRowsPerSec)
}
