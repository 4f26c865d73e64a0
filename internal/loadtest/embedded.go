package loadtest

import (
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Embedded makes the TargetSuite of a database that is a file opened in
// the loader's process (pkg/target/sqlembed): no server, so no address
// (Upstream ""), no network faults; each target gets a file of its own,
// and Rows opens that file with the database's own driver.
type Embedded struct {
	Loader string // "load_duckdb"
	// Driver is the database/sql driver that reads the file; the calling
	// test imports it.
	Driver string
	// Open returns the target of the database file path, written by
	// workers writers.
	Open func(path string, workers int) (load.Target, error)

	mu    sync.Mutex
	paths map[load.Target]string
}

// Suite is the conformance suite of the embedded target.
func (e *Embedded) Suite() TargetSuite {
	return TargetSuite{Loader: e.Loader, New: e.newTarget, Rows: e.rows}
}

func (e *Embedded) newTarget(t *testing.T, _ string, _ time.Duration) (load.Target, load.PrepareOptions) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "suite.db")
	tg, err := e.Open(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	e.mu.Lock()
	if e.paths == nil {
		e.paths = map[load.Target]string{}
	}
	e.paths[tg] = path
	e.mu.Unlock()
	return tg, load.PrepareOptions{DBName: "suite", CreateDB: true, DropDB: true}
}

// rows closes tg (a file opened twice may be locked against the second
// opening; the target opens it again when used) and reads table from the
// file: rows and distinct (time, host).
func (e *Embedded) rows(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	t.Helper()
	e.mu.Lock()
	path := e.paths[tg]
	e.mu.Unlock()
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(e.Driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := schema.QuoteIdent(table)
	if err := db.QueryRow("SELECT count(*) FROM " + q).Scan(&rows); err != nil {
		t.Fatalf("counting %s in %s: %v", table, path, err)
	}
	if err := db.QueryRow("SELECT count(*) FROM (SELECT DISTINCT time, host FROM " + q + ")").Scan(&keys); err != nil {
		t.Fatalf("counting the keys of %s in %s: %v", table, path, err)
	}
	return rows, keys
}
