package questdb

import (
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
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
