package questdb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// TestQueries checks the querier's answers against query.Eval on the real
// server (internal/querytest), over PG wire and over HTTP /exec, on tables
// ILP creates (designated timestamp "timestamp", tags SYMBOL; no DEDUP
// keys: the suite's rows have NULL tags).
func TestQueries(t *testing.T) {
	s := server(t)
	for _, wire := range []string{"pg", "http"} {
		t.Run(wire, func(t *testing.T) {
			querytest.Suite{Loader: "load_questdb", Upstream: s.http, New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
				cfg := Config{Transport: HTTP, URL: "http://" + proxy, WALTimeout: time.Minute, RequestTimeout: timeout}
				if wire == "pg" {
					cfg.PG = s.pg
				}
				tg, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tg.Close() })
				return tg, load.PrepareOptions{CreateDB: true, DropDB: true}
			}}.Run(t, uniqueName(t, "q"+wire))
		})
	}
}

// TestOddNames: a table prefix and name, tag names and values and a field
// name that need quoting are queried right.
func TestOddNames(t *testing.T) {
	s := server(t)
	tg, err := New(Config{Transport: HTTP, URL: s.http, PG: s.pg, WALTimeout: time.Minute, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	loadtest.DropQuestDBTables(t, s.http, "Q-odd_")
	querytest.CheckOdd(t, tg, "load_questdb", load.PrepareOptions{CreateDB: true, DropDB: true})
}

// TestAppliedPollsOnlyAfterAcks: a query polls wal_tables() for the WAL
// to be applied only when a write was acknowledged since the last poll
// that found it applied; each answer holds every acknowledged row (fails
// if a query skipped the wait after a new acknowledgement).
func TestAppliedPollsOnlyAfterAcks(t *testing.T) {
	s := server(t)
	ctx := context.Background()
	tg, err := New(Config{Transport: HTTP, URL: s.http, WALTimeout: time.Minute, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	table := uniqueName(t, "applied")
	loadtest.DropQuestDBTables(t, s.http, table)
	if err := tg.Prepare(ctx, load.PrepareOptions{CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	lq, err := tg.NewQuerier(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lq.Close()
	q := lq.(*loadQuerier)
	t0 := time.Unix(1451606400, 0).UTC()
	count := &query.Query{Name: "n", Table: table, Start: t0, End: t0.Add(time.Hour), Fields: []string{"v"}, Agg: query.Count}
	var want int
	for round, rows := range []int{3, 0, 0, 500, 0, 1} {
		if rows > 0 {
			var b strings.Builder
			for i := range rows {
				fmt.Fprintf(&b, "%s,h=a v=%d %d\n", table, i, t0.Add(time.Duration(want+i)*time.Millisecond).UnixNano())
			}
			batch := &load.Batch{Format: format.ILP, Data: []byte(b.String()), Rows: rows, Source: "in.ilp", FirstLine: 1, FirstRecord: 1,
				Tables: []load.TableRows{{Name: table, Rows: int64(rows)}}}
			if _, err := w.Write(ctx, batch); err != nil {
				t.Fatal(err)
			}
			want += rows
		}
		polls := q.polls
		a, err := q.Query(ctx, count)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Rows) != 1 || len(a.Rows[0].Values) != 1 || a.Rows[0].Values[0] != float64(want) {
			t.Fatalf("round %d: answer %+v, want a count of %d", round, a.Rows, want)
		}
		if polled := q.polls > polls; polled != (rows > 0) {
			t.Fatalf("round %d (%d rows written before): polled %v", round, rows, polled)
		}
	}
}
