//go:build cgo

package sqlembed_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	loadpkg "github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/duckdb"
	"github.com/tsload/tsload/pkg/target/sqlite"
)

var newTargets = map[string]func(path string) (loadpkg.Target, error){
	"duckdb": func(path string) (loadpkg.Target, error) { return duckdb.New(duckdb.Config{Path: path, Workers: 2}) },
	"sqlite": func(path string) (loadpkg.Target, error) { return sqlite.New(sqlite.Config{Path: path, Workers: 2}) },
}

// TestQueries checks each engine's querier against query.Eval
// (internal/querytest) on a file of its own.
func TestQueries(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			querytest.Suite{Loader: "load_" + e.name, New: func(t *testing.T, _ string, _ time.Duration) (loadpkg.Target, loadpkg.PrepareOptions) {
				tg, err := newTargets[e.name](filepath.Join(t.TempDir(), "q"+e.ext))
				if err != nil {
					t.Fatal(err)
				}
				return tg, loadpkg.PrepareOptions{CreateDB: true}
			}}.Run(t, "q")
		})
	}
}

// TestOddNames: a table prefix and name, tag names and values and a field
// name that need quoting are queried right.
func TestOddNames(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			tg, err := newTargets[e.name](filepath.Join(t.TempDir(), "odd"+e.ext))
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			querytest.CheckOdd(t, tg, "load_"+e.name, loadpkg.PrepareOptions{CreateDB: true})
		})
	}
}
