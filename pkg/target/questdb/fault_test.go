package questdb

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// TestFaults runs the shared fault scenarios (internal/loadtest.FaultSuite)
// with a fault proxy in front of ILP/HTTP and the real QuestDB of
// scripts/start_questdb.sh (DDL and counts over PG wire, not proxied).
// Tables have DEDUP, so a re-send of a request that did commit cannot
// duplicate rows. A server killed and restarted mid-load is
// TestIntegrationKillRestartHTTP (integration_test.go).
func TestFaults(t *testing.T) {
	s := server(t)
	loadtest.FaultSuite{
		Loader:   "load_questdb",
		Upstream: s.http,
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			tg, err := New(Config{Transport: HTTP, URL: "http://" + proxy, PG: s.pg, Dedup: true, WALTimeout: time.Minute,
				RequestTimeout: timeout, MinThroughput: 1 << 30, Lookup: testTable})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, tg load.Target, table string) (rows, keys int64) {
			q := tg.(*Target)
			ctx := context.Background()
			counts, err := q.Count(ctx, []string{table})
			if err != nil {
				t.Fatal(err)
			}
			qr, err := q.withQuerier(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out, err := qr.query(ctx, "SELECT count() FROM (SELECT DISTINCT timestamp, host FROM "+quote(table)+")")
			if err != nil {
				t.Fatal(err)
			}
			keys, _ = strconv.ParseInt(out[0][0], 10, 64)
			t.Cleanup(func() { qr.query(context.Background(), "DROP TABLE IF EXISTS "+quote(table)) })
			return counts[table], keys
		},
		// A string where the table has a DOUBLE: 400, the request rolled back.
		Refuse:    func(line string) string { return strings.Replace(line, " v=", ` v="oops",w=`, 1) },
		RefuseErr: []string{"line 3457", "400"},
	}.Run(t, uniqueName(t, "fault"))
}
