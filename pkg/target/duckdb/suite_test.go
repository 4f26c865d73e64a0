//go:build cgo

package duckdb

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on a
// DuckDB file: no server (no address, no network faults); the loader
// killed and resumed is pkg/target/sqlembed's TestKillResume.
func TestTargetSuite(t *testing.T) {
	e := &loadtest.Embedded{Loader: "load_duckdb", Driver: "duckdb", Open: func(path string, workers int) (load.Target, error) {
		return New(Config{Path: path, Workers: workers})
	}}
	s := e.Suite()
	s.Values = "DuckDB"
	s.Run(t, "suite")
}
