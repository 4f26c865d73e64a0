// Package clickhousetest is what the ClickHouse tests share: the real server of
// scripts/start_clickhouse.sh (CLICKHOUSE_ADDR for another), a database of each test's own,
// dropped when the test ends, and rows read from the server directly (not through the
// target).
package clickhousetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/servertest"
)

// DefaultAddr is where scripts/start_clickhouse.sh runs the native protocol.
const DefaultAddr = "127.0.0.1:19000"

func connect(addr string) (driver.Conn, error) {
	return ch.Open(&ch.Options{Addr: []string{addr}, DialTimeout: 2 * time.Second})
}

// ping checks that a ClickHouse answers the native protocol at addr.
func ping(addr string) error {
	conn, err := connect(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return conn.Ping(ctx)
}

// RealAddr is the host:port of the real ClickHouse the tests use: CLICKHOUSE_ADDR, or the
// local server of scripts/start_clickhouse.sh. When it does not answer, the test is skipped,
// or failed when CI is set.
func RealAddr(t testing.TB) string {
	t.Helper()
	return loadtest.Server(t, "ClickHouse", "CLICKHOUSE_ADDR", DefaultAddr, "scripts/start_clickhouse.sh", ping)
}

// RealDB is RealAddr and a database name of the test's own, dropped when the test ends.
func RealDB(t testing.TB) (addr, db string) {
	t.Helper()
	addr, db = RealAddr(t), loadtest.UniqueDB(t)
	DropAtEnd(t, addr, db)
	return addr, db
}

// DropAtEnd drops database db of the server at addr when t ends.
func DropAtEnd(t testing.TB, addr, db string) {
	t.Cleanup(func() {
		conn, err := connect(addr)
		if err != nil {
			t.Logf("drop %s: %v", db, err)
			return
		}
		defer conn.Close()
		if err := conn.Exec(context.Background(), "DROP DATABASE IF EXISTS `"+db+"`"); err != nil {
			t.Logf("drop %s: %v", db, err)
		}
	})
}

// Args are a loader's flags for a database of the test's own on the real server.
func Args(t *testing.T, _ string) []string {
	addr, db := RealDB(t)
	return []string{"--host", addr, "--db-name", db}
}

// Rows reads what db.table holds, directly: its rows and distinct (time, host) keys (FINAL
// for a ReplacingMergeTree, whose rows of one key not merged yet are one row); 0, 0 when
// the table does not exist.
func Rows(t testing.TB, addr, db, table string) (rows, keys int64) {
	t.Helper()
	conn, err := connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	var engine string
	r, err := conn.Query(ctx, "SELECT engine FROM system.tables WHERE database = ? AND name = ?", db, table)
	if err != nil {
		t.Fatal(err)
	}
	found := r.Next()
	if found {
		err = r.Scan(&engine)
	}
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return 0, 0
	}
	from := fmt.Sprintf("`%s`.`%s`", db, table)
	if engine == "ReplacingMergeTree" {
		from += " FINAL"
	}
	if err := conn.QueryRow(ctx, "SELECT toInt64(count()), toInt64(uniqExact(time, host)) FROM "+from).Scan(&rows, &keys); err != nil {
		t.Fatalf("rows of %s: %v", from, err)
	}
	return rows, keys
}

// HasDateTime64 reports whether the server at addr has DateTime64 (20.1 and later).
func HasDateTime64(t testing.TB, addr string) bool {
	t.Helper()
	conn, err := connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var v string
	if err := conn.QueryRow(context.Background(), "SELECT version()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	var major int
	fmt.Sscanf(v, "%d", &major)
	return major >= 20
}

// ChDBDir is the unpacked chdb wheel of scripts/install_chdb.sh (TSLOAD_CHDB for another);
// when it is missing the test is skipped, or failed when CI is set.
func ChDBDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TSLOAD_CHDB")
	if dir == "" {
		home, _ := os.UserHomeDir()
		cache := os.Getenv("TSLOAD_CACHE")
		if cache == "" {
			cache = filepath.Join(home, ".cache", "tsload")
		}
		dir = filepath.Join(cache, "chdb-3.7.2", "site")
	}
	if _, err := os.Stat(filepath.Join(dir, "chdb", "_chdb.abi3.so")); err != nil {
		servertest.SkipOrFail(t, fmt.Sprintf("no chDB at %s (run scripts/install_chdb.sh): %v", dir, err),
			fmt.Sprintf("no chDB at %s under CI: %v", dir, err))
	}
	return dir
}
