// Command load_prometheus loads line-protocol files into Prometheus
// through remote write 1.0 (/api/v1/write: each field a float64 sample of
// the series <measurement>_<field> with the tags and db=--db-name as
// labels, round-robin over --urls), and verifies through PromQL. Lost
// connections, 429 and 5xx answers are retried; every other refusal is
// fatal and never counted as loaded. See the README,
// docs/loaders/prometheus.md and pkg/target/prometheus.
package main

import (
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/prometheus"
)

func main() { loadcli.Main(spec()) }

// spec is the command line of the loader (its tests run it too).
func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_prometheus", Usage: "load line-protocol (or CSV, written as lines) files into Prometheus by remote write",
		Target: "prometheus", Flags: flags(), New: newTarget, Settings: settings, Takes: prometheus.Takes}
}
