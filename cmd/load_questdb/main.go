// Command load_questdb loads ILP files into QuestDB over HTTP (POST /write,
// one transaction per table per request, retried on 5xx and network errors,
// tables with DEDUP so a re-send cannot duplicate) or TCP (port 9009, no
// acknowledgements), and verifies the row counts after the WAL is applied.
// See the README and pkg/target/questdb for the flags and the guarantees.
package main

import (
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/questdb"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_questdb", Usage: "load ILP (or CSV, written as ILP) files into QuestDB over HTTP or TCP", Target: "questdb", Flags: questdbFlags(), New: newTarget, Settings: settings, Takes: questdb.Takes,
		// QuestDB has one namespace: no database to name.
		Unused: []string{loadcli.FlagDBName}}
}
