package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/report"
	"github.com/tsload/tsload/pkg/results"
)

// TestFootprintOutOfBytesPerRowChart: QuestDB's size counts its column
// files as allocated (16 MiB append pages, which the file system holds:
// st_blocks says the same), so 7,200 rows take hundreds of bytes per row.
// The results mark it, the table keeps the figure with the mark, and the
// page's bytes/row chart leaves it out with the reason instead of drawing
// a bar 13-40x the others'.
func TestFootprintOutOfBytesPerRowChart(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "fpchart")
	prefix += "_"
	file, rows := gentest.GenFile(t, t.TempDir(), "cpu.ilp", "cpu-only", format.ILP, 10, 2*time.Hour)
	r, res := loadInto(t, httpURL, pg, "--file", file, "--table-prefix", prefix)
	if res.Cost == nil || res.Cost.Footprint == nil || res.Cost.Footprint.Mark != results.MarkPreallocated || res.Cost.Footprint.SettledBytes <= 0 || res.Rows != rows {
		t.Fatalf("rows %d/%d, cost %+v\n%s", res.Rows, rows, res.Cost, r.Stderr)
	}
	raw, _ := json.Marshal(res)
	run, err := report.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	page, err := report.HTML([]report.Run{{Path: "questdb.json", Results: run}}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	i := strings.Index(s, "bytes on disk per row")
	if i < 0 {
		t.Fatal("no bytes/row chart")
	}
	bars := s[i:]
	bars = bars[:strings.Index(bars, "</svg>")]
	if strings.Contains(bars, `class="bar"`) || !strings.Contains(bars, "left out: includes preallocation") {
		t.Errorf("the preallocated size is drawn, or left out without the reason:\n%s", bars)
	}
	if !strings.Contains(s, "(includes preallocation)") {
		t.Error("the table does not keep the marked size")
	}
}
