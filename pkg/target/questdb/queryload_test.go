package questdb

import (
	"testing"
	"time"

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
