// Command load_sqlite loads tsload files (ILP, CSV, pgcopy, Parquet, TSBS's
// timescaledb files) into a SQLite database file, opened inside the
// loader's process. See docs/loaders/sqlite.md and pkg/target/sqlite.
package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/sqlembed"
	"github.com/tsload/tsload/pkg/target/sqlite"
)

func main() { loadcli.Main(spec()) }

const (
	flagJournalMode = "journal-mode"
	flagSynchronous = "synchronous"
	flagBusyTimeout = "busy-timeout"
)

var db = loadcli.Embedded{Ext: ".sqlite",
	PathUsage:   "the database `FILE`, created when missing (default: <db-name>.sqlite in the current directory); --drop-db drops the load's tables, never the file",
	Commit:      string(sqlembed.CommitBatch),
	CommitUsage: "per-batch (a transaction per batch), per-row (a commit per row) or one-transaction (the whole load, committed at its end); rows by a prepared INSERT"}

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_sqlite", Usage: "load ILP, csv, pgcopy or Parquet files into a SQLite database file (no server)", Target: "sqlite",
		Flags: db.Flags(
			&cli.StringFlag{Name: flagJournalMode, Value: sqlite.DefaultJournalMode, Usage: "PRAGMA journal_mode: wal, delete, truncate, persist, memory or off"},
			&cli.StringFlag{Name: flagSynchronous, Value: sqlite.DefaultSynchronous, Usage: "PRAGMA synchronous: full (SQLite's default: a commit is on disk when it returns), normal, extra or off"},
			&cli.DurationFlag{Name: flagBusyTimeout, Value: sqlite.DefaultBusyTimeout, Usage: "how long a worker waits for SQLite's one write lock (--workers N: the workers decode in parallel and commit one at a time)"},
		),
		New: newTarget, Settings: db.Settings(map[string]string{"JournalMode": flagJournalMode, "Synchronous": flagSynchronous, "BusyTimeout": flagBusyTimeout})}
}

// newTarget builds the target from the flags; it opens nothing.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	return db.New(c, cfg, func(path, commit string) (load.Target, error) {
		mode, err := sqlembed.ParseCommit(commit)
		if err != nil {
			return nil, err
		}
		return sqlite.New(sqlite.Config{Path: path, Commit: mode, Workers: cfg.Workers, JournalMode: c.String(flagJournalMode),
			Synchronous: c.String(flagSynchronous), BusyTimeout: c.Duration(flagBusyTimeout)})
	})
}
