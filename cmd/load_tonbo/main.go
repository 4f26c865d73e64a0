// Command load_tonbo loads tsload files (ILP, CSV, pgcopy, Parquet, TSBS's
// timescaledb files) into tonbo 0.3.2, an embedded LSM store that runs
// inside the loader's process through a Rust bridge linked with cgo. Build
// it with scripts/build_tonbo.sh, then go build -tags tonbo
// ./cmd/load_tonbo; built without the tag it says so and loads nothing.
// See docs/loaders/tonbo.md and pkg/target/tonbo.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/tonbo"
)

func main() { loadcli.Main(spec()) }

const flagWAL = "wal"

var db = loadcli.Embedded{Ext: ".tonbo",
	PathUsage:   "the `DIR` of the load's tables (one directory each), created when missing (default: <db-name>.tonbo in the current directory); --drop-db removes the load's tables, never the directory",
	Commit:      string(tonbo.CommitBatch),
	CommitUsage: "per-batch (a transaction per batch), per-row (tonbo's insert, a row at a time, no transaction) or write-batch (insert_batch, a batch at a time)"}

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_tonbo", Usage: "load ILP, csv, pgcopy or Parquet files into tonbo tables in a directory (embedded, no server)", Target: "tonbo",
		Flags: db.Flags(
			&cli.BoolFlag{Name: flagWAL, Value: true, Usage: "tonbo's write-ahead log; --wal=false keeps rows in memory until the load's end flushes them"},
		),
		New: newTarget, Settings: db.Settings(map[string]string{"WAL": flagWAL})}
}

// newTarget builds the target from the flags; it opens nothing.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	return db.New(c, cfg, func(path, commit string) (load.Target, error) {
		mode, err := tonbo.ParseCommit(commit)
		if err != nil {
			return nil, err
		}
		return tonbo.New(tonbo.Config{Path: path, Commit: mode, WAL: c.Bool(flagWAL)})
	})
}
