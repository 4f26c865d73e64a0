// Command load_clickhouse loads tsload files (ILP, CSV, pgcopy, Parquet, TSBS's timescaledb
// files) into a ClickHouse server over its native protocol: MergeTree tables ordered by the
// tags and time, one INSERT per table of a batch. Lost connections, timeouts and
// TOO_MANY_PARTS are retried; every other refusal is fatal and never counted as loaded. See
// docs/loaders/clickhouse.md and pkg/target/clickhouse.
package main

import "github.com/tsload/tsload/pkg/loadcli"

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_clickhouse", Usage: "load ILP, csv, pgcopy or Parquet files into ClickHouse (native protocol)", Target: "clickhouse",
		Flags: flags(), New: newTarget, Settings: settings}
}
