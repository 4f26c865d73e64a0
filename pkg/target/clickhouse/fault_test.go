package clickhouse

import (
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// privateClickHouse is a ClickHouse server of the test's own (scripts/start_clickhouse.sh with
// a state directory and ports of its own: native port p, HTTP p+1) for the fault suite's
// server kill: the shared server is never killed.
func privateClickHouse(t *testing.T) loadtest.Private {
	s := loadtest.PrivateServer(t, "CLICKHOUSE", "kill", 0, 1)
	s.StartScript, s.StopScript = "scripts/start_clickhouse.sh", "scripts/stop_clickhouse.sh"
	s.Env = append(s.Env, "CLICKHOUSE_HTTP_PORT="+strconv.Itoa(s.Port+1))
	s.PIDFile = filepath.Join(s.State, "clickhouse", "kill", "clickhouse.pid")
	s.NoBinary = "ClickHouse not installed"
	s.Run(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	const db = "kill"
	return loadtest.Private{
		Upstream: addr,
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			tg, err := New(Config{Addr: proxy, DBName: db, Dedup: true, RequestTimeout: timeout, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
			return clickhousetest.Rows(t, addr, db, table)
		},
		Kill: s.Kill, Start: s.Start,
	}
}
