// Command load_influx loads line-protocol files into InfluxDB 1.x, 2.x or
// 3.x over HTTP (the API detected from the server, or --api; gzip,
// round-robin over --urls). Back-pressure (429, 503, a full cache or
// write-ahead log) is retried; refused lines are reported with their input
// line numbers. See the README and pkg/target/influx for the flags and the
// guarantees.
package main

import (
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/influx"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_influx", Usage: "load line-protocol (or CSV, written as lines) files into InfluxDB 1.x, 2.x or 3.x", Target: "influx", Flags: flags(), New: newTarget, Settings: settings, Takes: influx.Takes}
}
