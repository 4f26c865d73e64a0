// Command load_tonbo loads tsload files (ILP, CSV, pgcopy, Parquet, TSBS's
// timescaledb files) into tonbo 0.3.2, an embedded LSM store that runs
// inside the loader's process through a Rust bridge linked with cgo. Build
// it with scripts/build_tonbo.sh, then go build -tags tonbo
// ./cmd/load_tonbo; built without the tag it says so and loads nothing.
// See docs/loaders/tonbo.md and pkg/target/tonbo.
package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/tonbo"
)

func main() { loadcli.Main(spec()) }

const (
	flagDBPath = "db-path"
	flagCommit = "commit"
	flagWAL    = "wal"
)

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_tonbo", Usage: "load ILP, csv, pgcopy or Parquet files into tonbo tables in a directory (embedded, no server)", Target: "tonbo",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagDBPath, Usage: "the `DIR` of the load's tables (one directory each), created when missing (default: <db-name>.tonbo in the current directory); --drop-db removes the load's tables, never the directory"},
			&cli.StringFlag{Name: flagCommit, Value: string(tonbo.CommitBatch), Usage: "per-batch (a transaction per batch), per-row (tonbo's insert, a row at a time, no transaction) or write-batch (insert_batch, a batch at a time)"},
			&cli.BoolFlag{Name: flagWAL, Value: true, Usage: "tonbo's write-ahead log; --wal=false keeps rows in memory until the load's end flushes them"},
		},
		New: newTarget, Settings: map[string]string{"Path": flagDBPath, "Commit": flagCommit, "WAL": flagWAL}}
}

// newTarget builds the target from the flags; it opens nothing. tonbo runs
// in this process: its CPU and memory are the loader's, so the server's
// figures are this process's (both are reported).
func newTarget(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	commit, err := tonbo.ParseCommit(c.String(flagCommit))
	if err != nil {
		return nil, err
	}
	path := c.String(flagDBPath)
	if path == "" {
		path = cfg.Prepare.DBName + ".tonbo"
	}
	if cfg.Cost.ServerPID == 0 {
		cfg.Cost.ServerPID = os.Getpid()
	}
	return tonbo.New(tonbo.Config{Path: path, Commit: commit, WAL: c.Bool(flagWAL)})
}
