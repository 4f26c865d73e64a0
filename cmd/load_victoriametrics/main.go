// Command load_victoriametrics loads line-protocol files into a
// single-node VictoriaMetrics over HTTP (/write, each field a metric
// <measurement>_<field> with the tags and db=--db-name as labels,
// round-robin over --urls). Back-pressure (503) and lost connections are
// retried; every other refusal is fatal and never counted as loaded. See
// the README, docs/loaders/victoriametrics.md and
// pkg/target/victoriametrics for the flags and the guarantees.
package main

import (
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/victoriametrics"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_victoriametrics", Usage: "load line-protocol (or CSV, written as lines) files into VictoriaMetrics", Target: "victoriametrics", Flags: flags(), New: newTarget, Settings: settings, Takes: victoriametrics.Takes}
}
