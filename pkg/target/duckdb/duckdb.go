// Package duckdb is the DuckDB target of cmd/load_duckdb: the database is
// a file that the loader opens in its own process (github.com/duckdb/duckdb-go,
// cgo), batches are written with DuckDB's Appender in a transaction per
// batch (or the load's one transaction), rows one prepared INSERT each with
// a commit per row. What it shares with SQLite is package sqlembed.
package duckdb

import "github.com/tsload/tsload/pkg/target/sqlembed"

// Config configures the target.
type Config struct {
	Path    string          // the database file, created when missing
	Commit  sqlembed.Commit // per-row, per-batch (default) or one-transaction
	Workers int
}

// New returns the target; it opens nothing.
func New(cfg Config) (*sqlembed.Target, error) {
	eng, err := newEngine()
	if err != nil {
		return nil, err
	}
	return sqlembed.New(sqlembed.Config{Path: cfg.Path, Commit: cfg.Commit, Workers: cfg.Workers}, eng)
}
