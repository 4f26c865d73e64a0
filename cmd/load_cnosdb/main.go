// Command load_cnosdb loads line-protocol files into CnosDB 2.x over HTTP
// (/api/v1/write with Basic auth, round-robin over --urls). Memory pressure
// and empty 500s are retried; every other refusal is fatal and never counted
// as loaded. See the README and pkg/target/cnosdb for the flags and the
// guarantees.
package main

import (
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/cnosdb"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_cnosdb", Usage: "load line-protocol (or CSV, written as lines) files into CnosDB 2.x", Target: "cnosdb", Flags: cnosdbFlags(), New: newTarget, Settings: settings, Takes: cnosdb.Takes}
}
