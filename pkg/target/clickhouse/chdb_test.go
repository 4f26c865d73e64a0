package clickhouse

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// TestChDBTargetSuite runs the conformance suite (loadtest.TargetSuite) on chDB inside the
// test's process (ClickHouse 25.8, DateTime64(9)): embedded, so no fault proxy and no
// resume of a killed loader here.
func TestChDBTargetSuite(t *testing.T) {
	dir := clickhousetest.ChDBDir(t)
	newTarget := func(t *testing.T, _ string, _ time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{DBPath: filepath.Join(t.TempDir(), "chdb"), ChDBDir: dir, DBName: "suite", Dedup: true, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: "suite", CreateDB: true, DropDB: true}
	}
	loadtest.TargetSuite{Loader: "load_clickhouse", New: newTarget, Rows: chdbRows, Embedded: true, Values: "chDB"}.Run(t, "suite")
}

// chdbRows closes the target and reads table from its data path with an engine of its own
// (FINAL: rows of one key not merged yet are one row).
func chdbRows(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	t.Helper()
	target := tg.(*Target)
	if err := target.Close(); err != nil {
		t.Fatalf("closing the target: %v", err)
	}
	e, err := openChDB(target.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	ctx := context.Background()
	tb, err := describeTable(ctx, e, target.cfg.DBName, table)
	if err != nil || tb == nil {
		t.Fatalf("table %s: %v", table, err)
	}
	if err := scanStrings(ctx, e, "SELECT toString(count()), toString(uniqExact(time, host)) FROM "+tb.from(target.cfg.DBName), &rows, &keys); err != nil {
		t.Fatal(err)
	}
	return rows, keys
}
