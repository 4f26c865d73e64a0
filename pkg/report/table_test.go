package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func globT(t *testing.T, pattern string) []string {
	t.Helper()
	fs, err := filepath.Glob(pattern)
	if err != nil || len(fs) == 0 {
		t.Fatalf("no files match %s: %v", pattern, err)
	}
	return fs
}

func TestTableGolden(t *testing.T) {
	matrix := globT(t, "testdata/matrix/*.json")
	compare := globT(t, "testdata/compare/*.json")
	cost := globT(t, "testdata/cost/*.json")
	// Paced runs and runs with a query load beside a closed-loop run
	// without queries.
	pace := append(globT(t, "testdata/pace/*.json"), "testdata/compare/questdb.json")
	queries := []string{"testdata/queries/fake_queries.json", "testdata/compare/questdb.json"}
	byTarget := []string{"target"}
	tests := []struct {
		golden string
		cfg    TableConfig
	}{
		{"matrix.md", TableConfig{Files: matrix}},
		{"matrix.csv", TableConfig{Files: matrix, Format: "csv"}},
		{"matrix_by_workers.md", TableConfig{Files: matrix, Group: []string{"workers"}}},
		{"compare.md", TableConfig{Files: compare, Group: byTarget}},
		{"compare.csv", TableConfig{Files: compare, Group: byTarget, Format: "csv"}},
		{"cost.md", TableConfig{Files: cost, Group: byTarget}},
		{"cost.csv", TableConfig{Files: cost, Group: byTarget, Format: "csv"}},
		{"cost_only.md", TableConfig{Files: cost, Group: byTarget, Format: "cost"}},
		{"pace.md", TableConfig{Files: pace, Group: byTarget}},
		{"pace.csv", TableConfig{Files: pace, Group: byTarget, Format: "csv"}},
		{"queries.md", TableConfig{Files: queries, Group: byTarget}},
		{"queries.csv", TableConfig{Files: queries, Group: byTarget, Format: "csv"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			tt.cfg.Out = &b
			if err := RunTable(tt.cfg); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, b.Bytes())
		})
	}
}

// TestTableOptionalColumns: the pace and the query columns (with their
// legend) come with a run that has them, and only then.
func TestTableOptionalColumns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		group []string
		want  []string // in the table of files
		word  string   // in no table of a closed-loop run without queries
	}{
		{"pace", []string{"testdata/pace/questdb_steps.json", "testdata/compare/questdb.json"}, []string{"name"},
			[]string{"| offered rows/s | p99 from due ms | max lag s | sustainable rows/s |",
				"| questdb_steps |", "| 25,000 | 241.3 | 0.083 | 10,000 |", "| closed loop |", "latency from due counts from when each batch was due"},
			"offered"},
		{"queries", []string{"testdata/queries/fake_queries.json", "testdata/compare/questdb.json"}, []string{"target"},
			[]string{"| query p50 ms | query p99 ms | wrong answers |", "| 322.3 | 5234.7 | 0 |", "| no queries |", "queries run beside the load"},
			"query"},
	} {
		var out bytes.Buffer
		if err := RunTable(TableConfig{Files: tc.files, Group: tc.group, Out: &out}); err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: table lacks %q:\n%s", tc.name, want, out.String())
			}
		}
		out.Reset()
		if err := RunTable(TableConfig{Files: []string{"testdata/compare/questdb.json"}, Out: &out}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), tc.word) {
			t.Errorf("%s columns without such a run:\n%s", tc.name, out.String())
		}
	}
}

// A failed run never shows as a number: every value column of its cell
// carries the status.
func TestTableFailedCellHasNoNumbers(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/matrix/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	tab := Summarize(runs, []string{"batch_size", "workers"})
	var failed *Cell
	for i := range tab.Cells {
		if tab.Cells[i].Key[0] == "3000" && tab.Cells[i].Key[1] == "4" {
			failed = &tab.Cells[i]
		}
	}
	if failed == nil || failed.OK() || failed.Status != "failed" || len(failed.Errors) != 1 {
		t.Fatalf("cell 3000x4: %+v", failed)
	}
	for i, v := range failed.markdownRow()[1:] {
		if v != "failed" {
			t.Errorf("markdown column %q = %q, want failed", valueColumns[i+1], v)
		}
	}
	row := failed.csvRow()
	for i, v := range row[1 : len(row)-1] {
		if v != "failed" {
			t.Errorf("csv column %q = %q, want failed", csvValueColumns[i+1], v)
		}
	}
	if !strings.Contains(row[len(row)-1], "cache-max-memory-size exceeded") {
		t.Errorf("csv error column %q lacks the run's error", row[len(row)-1])
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{5}, Spread{5, 5, 5}},
		{[]float64{3, 1, 2}, Spread{2, 1, 3}},
		{[]float64{4, 1, 3, 2}, Spread{2.5, 1, 4}},
		{[]float64{10, 10, 1000, 10}, Spread{10, 10, 1000}},
	}
	for _, tt := range tests {
		in := append([]float64(nil), tt.in...)
		if got := spreadOf(tt.in); got != tt.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.in[i] {
				t.Errorf("spreadOf reordered its input")
			}
		}
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567.6: "1,234,568", -12345: "-12,345", 100000: "100,000"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyOrderNumeric(t *testing.T) {
	runs := []Run{}
	for _, bs := range []int{20000, 1000, 5000, 3000} {
		r := fakeRun("r", bs, 2, 1000)
		runs = append(runs, r)
	}
	tab := Summarize(runs, []string{"batch_size"})
	var got []string
	for _, c := range tab.Cells {
		got = append(got, c.Key[0])
	}
	if strings.Join(got, ",") != "1000,3000,5000,20000" {
		t.Errorf("order %v, want numeric", got)
	}
}

func TestParseGroup(t *testing.T) {
	if g, err := ParseGroup(" batch_size, workers "); err != nil || len(g) != 2 || g[1] != "workers" {
		t.Errorf("ParseGroup = %v, %v", g, err)
	}
	for _, bad := range []string{"", ",", "batch", "workers,rows"} {
		if _, err := ParseGroup(bad); err == nil {
			t.Errorf("ParseGroup(%q) accepted", bad)
		}
	}
}

func TestRunTableErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"status": "ok", "rows": }`), 0o644)
	nostatus := filepath.Join(dir, "nostatus.json")
	os.WriteFile(nostatus, []byte(`{"rows": 5}`), 0o644)
	for _, tt := range []struct {
		cfg  TableConfig
		want string
	}{
		{TableConfig{}, "no results files"},
		{TableConfig{Files: []string{filepath.Join(dir, "missing.json")}}, "missing.json"},
		{TableConfig{Files: []string{bad}}, "bad.json: byte offset"},
		{TableConfig{Files: []string{nostatus}}, "nostatus.json: not a results file"},
		{TableConfig{Files: globT(t, "testdata/compare/*.json"), Format: "xml"}, "unknown table format"},
	} {
		tt.cfg.Out = &bytes.Buffer{}
		err := RunTable(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("RunTable(%v) error %v, want %q", tt.cfg.Files, err, tt.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range []string{"testdata/compare/influx.json", "testdata/compare/cnosdb.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"status":"ok"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		if r.Status == "" {
			t.Fatal("decoded a document without status")
		}
		tab := Summarize([]Run{{Path: "fuzz", Results: r}}, []string{"batch_size", "workers"})
		if err := tab.WriteMarkdown(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if err := tab.WriteCSV(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTableCost: runs with costs add the footprint, server and loader
// columns (TestTableGolden: cost.md, cost.csv, cost_only.md); what a run
// did not measure says so.
func TestTableCost(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/cost/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	tab := Summarize(runs, []string{"target"})
	for _, c := range tab.Cells {
		row := c.costRow()
		switch c.Key[0] {
		case "questdb": // 120 MB for 1M rows, 2.5 server CPU-s, 900 MB peak; files counted as allocated
			if strings.Join(row, "|") != "120.0 (includes preallocation)|*120.0|2.50|900|1.10" {
				t.Errorf("questdb %v", row)
			}
		case "influx":
			if row[2] != "not measured" || row[3] != "not measured" || row[0] != "38.0" {
				t.Errorf("influx %v", row)
			}
		}
	}
}

// A cell whose runs retried says so beside its rate: the column and a
// note that the rate includes the back-off, in Markdown and HTML.
func TestTableShowsRetries(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/compare/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		if runs[i].Target == "timescale" {
			runs[i].Retries = 4
			runs[i].Errors = 1
		}
		if runs[i].Target == "influx" {
			runs[i].Flags = map[string]any{"api": "v3"}
		}
	}
	tab := Summarize(runs, []string{"target"})
	var md strings.Builder
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 75.0 | 4 / 1 |", "| 50.0 | 0 / 0 |", "- timescale: 4 retries in 1 of 1 runs: its rows/s and p99 include the retries' back-off",
		"- influx: an InfluxDB 3 write is acknowledged after the server's next WAL flush"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if n := strings.Count(md.String(), "back-off ("); n != 1 {
		t.Errorf("%d retry notes, want 1 (only timescale retried):\n%s", n, md.String())
	}
	page, err := HTML(runs, []string{"target"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<td class=\"num\">4 / 1</td>", "<li>timescale: 4 retries in 1 of 1 runs"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// A footprint that is not a measurement of the rows' storage never shows
// as a plain figure: a 0-byte size of loaded rows (results written before
// the runner refused it) is "not measured" with the reason, and a bar of
// a marked size carries its sign and a note under the chart.
func TestFootprintNotAFigure(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/cost/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range runs {
		if fp := runs[i].Cost.Footprint; runs[i].Target == "influx" {
			fp.SettledBytes, fp.AfterLoadBytes, fp.BytesPerRow = 0, 0, 0
		}
	}
	tab := Summarize(runs, []string{"target"})
	for _, c := range tab.Cells {
		if c.Key[0] == "influx" {
			if row := c.costRow(); row[0] != "not measured" || row[1] != "not measured" {
				t.Errorf("0 bytes shown as %v", row)
			}
		}
	}
	if !slices.ContainsFunc(tab.costNotes(), func(n string) bool {
		return strings.HasPrefix(n, "influx: not measured: footprint: the database reported 0 bytes")
	}) {
		t.Errorf("notes %q lack the 0-byte footprint", tab.costNotes())
	}
	svg, err := BarsSVG(tab, MetricBytesPerRow, "")
	if err != nil {
		t.Fatal(err)
	}
	// A preallocated size is no bar (the 13-40x the others).
	for _, want := range []string{">left out: includes preallocation<", "left out: sizes that include preallocated column pages"} {
		if !strings.Contains(svg, want) {
			t.Errorf("bytes/row bars lack %q", want)
		}
	}
	if strings.Contains(svg, ">*120<") {
		t.Error("a preallocated size drawn as a bar")
	}
	// A lower bound is drawn, marked.
	for i := range runs {
		if fp := runs[i].Cost.Footprint; fp.Mark == results.MarkPreallocated {
			fp.Mark = results.MarkLowerBound
		}
	}
	svg, err = BarsSVG(Summarize(runs, []string{"target"}), MetricBytesPerRow, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">≥120<", "marked bars: ≥ lower bound"} {
		if !strings.Contains(svg, want) {
			t.Errorf("bytes/row bars lack %q", want)
		}
	}
}
