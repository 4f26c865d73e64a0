package questdb

import (
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
)

// TestTSBSQueries runs a query set of TSBS's catalogue against the real
// server over PG wire with every answer checked
// (internal/querytest.RunTSBS).
func TestTSBSQueries(t *testing.T) {
	s := server(t)
	querytest.Suite{Loader: "load_questdb", Upstream: s.http, New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Transport: HTTP, URL: "http://" + proxy, PG: s.pg, WALTimeout: time.Minute, RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{CreateDB: true, DropDB: true}
	}}.RunTSBS(t, uniqueName(t, "b"))
}
