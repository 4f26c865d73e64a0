// Command load_duckdb loads tsload files (ILP, CSV, pgcopy, Parquet, TSBS's
// timescaledb files) into a DuckDB database file, opened inside the
// loader's process. See docs/loaders/duckdb.md and pkg/target/duckdb.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/duckdb"
	"github.com/tsload/tsload/pkg/target/sqlembed"
)

func main() { loadcli.Main(spec()) }

var db = loadcli.Embedded{Ext: ".duckdb",
	PathUsage:   "the database `FILE`, created when missing (default: <db-name>.duckdb in the current directory); --drop-db drops the load's tables, never the file",
	Commit:      string(sqlembed.CommitBatch),
	CommitUsage: "per-batch (Appender, a transaction per batch), per-row (prepared INSERT, a commit per row) or one-transaction (the whole load, committed at its end)"}

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_duckdb", Usage: "load ILP, csv, pgcopy or Parquet files into a DuckDB database file (no server)", Target: "duckdb",
		Flags: db.Flags(), New: newTarget, Settings: db.Settings(nil)}
}

// newTarget builds the target from the flags; it opens nothing.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	return db.New(c, cfg, func(path, commit string) (load.Target, error) {
		mode, err := sqlembed.ParseCommit(commit)
		if err != nil {
			return nil, err
		}
		return duckdb.New(duckdb.Config{Path: path, Commit: mode, Workers: cfg.Workers})
	})
}
