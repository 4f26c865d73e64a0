package report

import (
	"strings"
	"testing"
)

// The query fixture is a run of pkg/runner's fake target (an in-memory
// database answering with query.Eval): cpu-only scale 10 over 6 h,
// --query-rate 200 on 2 connections, every answer checked right.

func TestQuerySVG(t *testing.T) {
	runs, err := ReadFiles([]string{"testdata/queries/fake_queries.json", "testdata/compare/questdb.json"})
	if err != nil {
		t.Fatal(err)
	}
	if QuerySVG(runs[1]) != "" {
		t.Error("a query chart for a run without queries")
	}
	svg := QuerySVG(runs[0])
	for _, want := range []string{"query latency per period", "lastpoint p99", "groupby-orderby-limit p99", "36 checked, 0 wrong", "<polyline"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	for _, s := range querySeries(runs[0]) {
		if len(s.pts) == 0 {
			t.Errorf("%s: no points", s.name)
		}
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	// Under the run's rate chart, before the next run's.
	rate, q := strings.Index(string(page), "fake_queries"), strings.Index(string(page), "query latency per period")
	if q < 0 || rate < 0 || !strings.Contains(string(page), "wrong answers") {
		t.Errorf("page: rate chart at %d, query chart at %d", rate, q)
	}
	golden(t, "queries.html.golden", page)
}
