package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

// The querybench fixtures are hand-written results files of load_* --queries
// over the same cpu-only query set: three QuestDB runs (the third failed on a
// wrong answer), one DuckDB run with --check=false, one VictoriaMetrics run
// whose target declares high-cpu-all unsupported.

func TestQueryBenchTable(t *testing.T) {
	files := globT(t, "testdata/querybench/*.json")
	for _, tc := range []struct {
		golden, format string
		want           []string
	}{
		{"querybench/table.md", "md", []string{
			"| target | query type | runs | queries | q/s | p50 ms |",
			"| --- | --- | ---: |",
			"| questdb | high-cpu-all | 3 | 40 | 20.0 (19.0–21.1) | 49.0 (48.2–51.7) |",
			"| 120 / 1 |",
			"| duckdb | lastpoint | 1 | 40 | 9.1 | 5.9 | 9.4 | 17.1 | 24.8 | 0 | not checked |",
			"| victoriametrics | high-cpu-all | 1 | unsupported |",
			"first wrong answer: query 17 (high-cpu-all",
		}},
		{"querybench/table.csv", "csv", []string{
			"target,query_type,runs,queries,queries_per_sec,",
			"questdb,high-cpu-all,3,40,20.0,19.0,21.1,49.0,78.4,142.1,139.8,149.9,205.8,0,120,1",
			"duckdb,lastpoint,1,40,9.1,9.1,9.1,5.9,9.4,17.1,17.1,17.1,24.8,0,not checked,not checked",
			"victoriametrics,high-cpu-all,1,unsupported,",
		}},
	} {
		var b bytes.Buffer
		if err := RunTable(TableConfig{Files: files, Group: []string{"target"}, Format: tc.format, Out: &b}); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q:\n%s", tc.golden, w, b.String())
			}
		}
		golden(t, tc.golden, b.Bytes())
	}
}

// TestQueryBenchCSVSections: the CSV is the load table, an empty line, and
// the per-query-type table, each rectangular under its own header.
func TestQueryBenchCSVSections(t *testing.T) {
	var b bytes.Buffer
	if err := RunTable(TableConfig{Files: globT(t, "testdata/querybench/*.json"), Group: []string{"target"}, Format: "csv", Out: &b}); err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(b.String(), "\n\n", 2)
	if len(parts) != 2 {
		t.Fatalf("want two tables split by an empty line:\n%s", b.String())
	}
	// A header, then 3 targets; a header, then 3 targets × 5 types.
	for i, want := range []int{4, 16} {
		recs, err := csv.NewReader(strings.NewReader(parts[i])).ReadAll()
		if err != nil {
			t.Fatalf("table %d: %v", i, err)
		}
		if len(recs) != want {
			t.Errorf("table %d: %d records, want %d", i, len(recs), want)
		}
	}
}

// TestQueryBenchOnlyWithRuns: no table, section or legend without a query
// set run; the HTML page's section with one.
func TestQueryBenchOnlyWithRuns(t *testing.T) {
	for _, format := range []string{"md", "csv"} {
		var b bytes.Buffer
		if err := RunTable(TableConfig{Files: globT(t, "testdata/compare/*.json"), Format: format, Out: &b}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "query type") || strings.Contains(b.String(), "query_type") {
			t.Errorf("%s: a query benchmark table without a query set run:\n%s", format, b.String())
		}
	}
	runs, err := ReadFiles(globT(t, "testdata/compare/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "Query benchmark") {
		t.Error("page has a query benchmark section without a query set run")
	}
	runs, err = ReadFiles(globT(t, "testdata/querybench/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	page, err = HTML(runs, []string{"target"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`<h2 id="querybench">Query benchmark</h2>`, "<th>checked / wrong answers</th>",
		`<td>victoriametrics</td><td>high-cpu-all</td><td class="num">1</td><td class="num">unsupported</td>`,
		`<td class="num">not checked</td>`, "Query latency per query type", `class="status">unsupported</text>`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("page lacks %q", w)
		}
	}
	golden(t, "querybench/page.html.golden", page)
}

// TestQueryBenchSVG: a bar per answered (target, type), a whisker each, a
// red word for the type VictoriaMetrics declared unsupported.
func TestQueryBenchSVG(t *testing.T) {
	runs, err := ReadFiles(globT(t, "testdata/querybench/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	svg := QueryBenchSVG(Summarize(runs, []string{"target"}))
	if n := strings.Count(svg, `class="bar"`); n != 14 {
		t.Errorf("%d bars, want 14 (3 targets x 5 types, one unsupported)", n)
	}
	if n := strings.Count(svg, `class="whisker"`); n != 14 {
		t.Errorf("%d whiskers, want 14", n)
	}
	if n := strings.Count(svg, `class="status">unsupported<`); n != 1 {
		t.Errorf("%d unsupported marks, want 1", n)
	}
	runs, err = ReadFiles([]string{"testdata/compare/questdb.json"})
	if err != nil {
		t.Fatal(err)
	}
	if QueryBenchSVG(Summarize(runs, []string{"target"})) != "" {
		t.Error("a query benchmark chart without a query set run")
	}
}
