package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/report"
)

// TestBusyNeighbourMarksRunDisturbed loads into the real VictoriaMetrics
// for about two seconds (paced) beside a shell busy loop on one core: the
// run is marked disturbed in its summary, its results file, `report
// table` and `report html`. (The converse, a load alone that is not
// marked, is not asserted here: other tests of the suite run beside this
// one and are, rightly, interference.)
func TestBusyNeighbourMarksRunDisturbed(t *testing.T) {
	base, db := vmtest.RealDB(t)
	var in strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&in, "cpu,h=h%d v=%d %d\n", i%10, i, int64(1451606400000000000)+int64(i)*1e9)
	}
	loop := exec.Command("sh", "-c", "while :; do :; done")
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { loop.Process.Kill(); loop.Wait() }()
	r := loadtest.RunOnInput(t, spec(), "busy.ilp", in.String(), "", "--urls", base, "--db-name", db, "--rate", "2000", "--batch-size", "200")
	res := r.Verified(t, 4000)
	loop.Process.Kill()
	if res.Cost == nil || res.Cost.Interference == nil || !res.Cost.Interference.Disturbed || res.Cost.Interference.Cores < 0.5 {
		t.Fatalf("interference %+v, want disturbed\n%s", res.Cost, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "DISTURBED: other work ran on the machine (interference ") {
		t.Errorf("the summary does not say the run was disturbed:\n%s", r.Stderr)
	}
	resultsPath := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(resultsPath, r.Results, 0o644); err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := report.RunTable(report.TableConfig{Files: []string{resultsPath}, Out: &table}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "DISTURBED 1 of 1") || !strings.Contains(table.String(), "1 of 1 runs disturbed") {
		t.Errorf("report table does not mark the run:\n%s", table.String())
	}
	runs, err := report.ReadFiles([]string{resultsPath})
	if err != nil {
		t.Fatal(err)
	}
	page, err := report.HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "DISTURBED 1 of 1") {
		t.Errorf("report html does not mark the run")
	}
}
