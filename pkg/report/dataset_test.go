package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/results"
)

// datasetRun is an ok QuestDB run of a generated cpu-only dataset of rows
// rows over hours hours, in format.
func datasetRun(path string, rate float64, rows int64, end, format string) Run {
	r := fakeRun(path, 5000, 2, rate)
	seed := uint64(1)
	r.Environment = &results.Environment{
		Server: results.Server{Version: "QuestDB 9.3.4"},
		Dataset: envinfo.Dataset{Source: "generate_data", UseCase: "cpu-only", Scale: 1, Seed: &seed,
			Start: "2016-01-01T00:00:00Z", End: end, Interval: "10s", Format: format, Rows: rows, Bytes: rows * 100},
	}
	return r
}

// Runs of different datasets are never one median: the 3,600 and
// 192,472 rows gave one cell of 65,082 rows/s out of 13,284 and 116,879.
// The default group makes a row per dataset in the table and on the page;
// one dataset in two formats (bytes differ) stays one row.
func TestDefaultGroupOneRowPerDataset(t *testing.T) {
	runs := []Run{
		datasetRun("small.json", 13284, 3600, "2016-01-01T01:00:00Z", "ilp"),
		datasetRun("big.json", 116879, 192472, "2016-01-03T05:27:52Z", "ilp"),
		datasetRun("big2.json", 116000, 192472, "2016-01-03T05:27:52Z", "csv"),
	}
	tb := Summarize(runs, DefaultGroup(runs))
	if len(tb.Cells) != 2 {
		t.Fatalf("%d cells, want one per dataset: %+v", len(tb.Cells), tb.Keys)
	}
	var md bytes.Buffer
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| dataset | target |", "3,600 rows | x |", "192,472 rows | x |", "13,284", "116,440"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "65,082") {
		t.Errorf("a median across datasets:\n%s", md.String())
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, cmp, _ := strings.Cut(html.UnescapeString(string(page)), `<table class="comparison">`)
	cmp, _, _ = strings.Cut(cmp, "</table>")
	if !strings.Contains(cmp, "3,600 rows") || !strings.Contains(cmp, "192,472 rows") {
		t.Errorf("the page's comparison does not split the datasets:\n%s", cmp)
	}
	// One dataset: no dataset column.
	if g := DefaultGroup(runs[1:]); g[0] == "dataset" {
		t.Errorf("one dataset grouped by dataset: %v", g)
	}
}
