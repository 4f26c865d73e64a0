package clickhouse

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
)

// serverTarget makes targets on database db of the server at an address.
func serverTarget(db string) func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Addr: addr, DBName: db, Dedup: true, RequestTimeout: timeout, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: db, CreateDB: true}
	}
}

// chdbTarget makes targets on a chDB data path of the test's own.
func chdbTarget(dir string) func(t *testing.T, _ string, _ time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, _ string, _ time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{DBPath: filepath.Join(t.TempDir(), "chdb"), ChDBDir: dir, DBName: "q", Dedup: true, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: "q", CreateDB: true}
	}
}

// TestQueries checks the querier's answers against query.Eval on the real server
// (internal/querytest): every query type, on 18.16 too (no window functions there: Last and
// the newest buckets per group are argMax and LIMIT BY).
func TestQueries(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	querytest.Suite{Loader: "load_clickhouse", Upstream: addr, New: serverTarget(db)}.Run(t, "q")
}

// TestOddNames: a table prefix and name, tag names and values and a field name that need
// quoting are queried right.
func TestOddNames(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	tg, prep := serverTarget(db)(t, addr, 30*time.Second)
	querytest.CheckOdd(t, tg, "load_clickhouse", prep)
}

// TestChDBQueries checks the querier's answers on chDB (ClickHouse 25.8), odd names too.
func TestChDBQueries(t *testing.T) {
	dir := clickhousetest.ChDBDir(t)
	querytest.Suite{Loader: "load_clickhouse", New: chdbTarget(dir)}.Run(t, "q")
	t.Run("odd names", func(t *testing.T) {
		tg, prep := chdbTarget(dir)(t, "", 0)
		querytest.CheckOdd(t, tg, "load_clickhouse", prep)
	})
}

// TestTSBSQueries runs a query set of TSBS's catalogue against the real server with every
// answer checked (internal/querytest.RunTSBS). 18.16 has no window functions (before 21.9):
// the types that follow a truck's buckets one to the next are declared unsupported there.
func TestTSBSQueries(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	tg, prep := serverTarget(db)(t, addr, 30*time.Second)
	if err := tg.Prepare(context.Background(), prep); err != nil {
		t.Fatal(err)
	}
	v, err := tg.(*Target).ServerVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var unsupported []string
	if !serverHasWindows(strings.TrimPrefix(v, "ClickHouse ")) {
		unsupported = querytest.Changes
	}
	querytest.Suite{Loader: "load_clickhouse", Upstream: addr, New: serverTarget(db), Unsupported: unsupported}.RunTSBS(t, "b")
}

// TestChDBTSBSQueries is TestTSBSQueries on chDB, which runs every type.
func TestChDBTSBSQueries(t *testing.T) {
	querytest.Suite{Loader: "load_clickhouse", New: chdbTarget(clickhousetest.ChDBDir(t))}.RunTSBS(t, "b")
}
