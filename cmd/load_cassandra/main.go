// Command load_cassandra loads line-protocol and CSV files into Apache
// Cassandra (or ScyllaDB) over CQL: a table per measurement keyed by the
// series and a time bucket, time as the clustering column, written as
// unlogged batches per partition at the --consistency level. See the README
// and pkg/target/cassandra for the layout and the guarantees.
package main

import (
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/cassandra"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_cassandra", Usage: "load line-protocol or CSV files into Apache Cassandra over CQL", Target: "cassandra",
		Flags: cassandraFlags(), New: newTarget, Settings: settings, Takes: cassandra.Takes}
}
