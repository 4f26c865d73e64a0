package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/report"
	"github.com/tsload/tsload/pkg/results"
)

// TestFootprintWholeServer: VictoriaMetrics accounts for its whole
// storage, every db label, not the loaded series alone. The results mark
// the footprint so, and `report table` shows the mark beside the size and
// the bytes/row instead of passing it off as the loaded tables' size.
func TestFootprintWholeServer(t *testing.T) {
	base, db := vmtest.RealDB(t)
	in, resultsPath := loadtest.InputFile(t, "in.ilp", "cpu,h=a v=1 1451606400000000000\ncpu,h=b v=2 1451606400000000000\n")
	r := loadtest.RunCLI(t, spec(), []string{"load_victoriametrics", "--file", in, "--results-file", resultsPath, "--urls", base, "--db-name", db,
		"--footprint-settle", "20s"},
		resultsPath, "")
	res := r.Verified(t, 2)
	if res.Cost == nil {
		t.Fatal("no costs recorded")
	}
	fp := res.Cost.Footprint
	if fp == nil || fp.NotMeasured != "" || fp.Mark != results.MarkWholeServer {
		t.Fatalf("footprint %+v, want it measured and marked %q", fp, results.MarkWholeServer)
	}
	var md bytes.Buffer
	if err := report.RunTable(report.TableConfig{Files: []string{resultsPath}, Format: "cost", Out: &md}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), " (whole server) | †") || !strings.Contains(md.String(), "† whole server") {
		t.Errorf("the table does not mark the whole server's size:\n%s", md.String())
	}
}
