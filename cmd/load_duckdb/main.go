// Command load_duckdb loads tsload files (ILP, CSV, pgcopy, Parquet, TSBS's
// timescaledb files) into a DuckDB database file, opened inside the
// loader's process. See docs/loaders/duckdb.md and pkg/target/duckdb.
package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/duckdb"
	"github.com/tsload/tsload/pkg/target/sqlembed"
)

func main() { loadcli.Main(spec()) }

const (
	flagDBPath = "db-path"
	flagCommit = "commit"
)

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_duckdb", Usage: "load ILP, csv, pgcopy or Parquet files into a DuckDB database file (no server)", Target: "duckdb",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagDBPath, Usage: "the database `FILE`, created when missing (default: <db-name>.duckdb in the current directory); --drop-db drops the load's tables, never the file"},
			&cli.StringFlag{Name: flagCommit, Value: string(sqlembed.CommitBatch), Usage: "per-batch (Appender, a transaction per batch), per-row (prepared INSERT, a commit per row) or one-transaction (the whole load, committed at its end)"},
		},
		New: newTarget, Settings: map[string]string{"Path": flagDBPath, "Commit": flagCommit}}
}

// newTarget builds the target from the flags; it opens nothing. The
// database runs in this process: its CPU and memory are the loader's, so
// the server's figures are this process's (both are reported).
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	commit, err := sqlembed.ParseCommit(c.String(flagCommit))
	if err != nil {
		return nil, loadcli.Overrides{}, err
	}
	path := c.String(flagDBPath)
	if path == "" {
		path = cfg.Prepare.DBName + ".duckdb"
	}
	tg, err := duckdb.New(duckdb.Config{Path: path, Commit: commit, Workers: cfg.Workers})
	return tg, loadcli.Overrides{ServerPID: os.Getpid()}, err
}
