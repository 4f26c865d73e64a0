package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

// fiveServers is the scenario: the four databases' runs, plus an
// InfluxDB 2.7.12 run that, like the 1.6.7 ones, is target "influx",
// written in schema version 2 (typed flags and a Setup).
func fiveServers(t *testing.T) []Run {
	runs := envRuns(t)
	var v2 Run
	for _, r := range runs {
		if r.Target == "influx" {
			c := *r.Results
			v2 = Run{Path: "testdata/env/influx2_r1.json", Results: &c}
			break
		}
	}
	env := *v2.Environment
	env.Server = results.Server{Version: "InfluxDB v2.7.12 (git: none)"}
	v2.Environment = &env
	v2.SchemaVersion = results.SchemaVersion
	v2.Flags = map[string]any{"gzip": false, "batch-size": 5000.0, "request-timeout": "1m0s"}
	v2.Setup = &results.Setup{API: "v2", Settings: map[string]any{"gzip": false, "dedup": true, "request-timeout": "1m0s"}}
	v2.RowsPerSec = 99999
	return append(runs, v2)
}

// By default a row is one server: never a median across different
// servers (before, `report table` grouped every target into one row per
// batch size and workers, and grouping by target made InfluxDB 1.6.7 and
// 2.7.12 two repeats of one row); table and html show the same rows in
// the same order.
func TestDefaultGroupOneRowPerServer(t *testing.T) {
	runs := fiveServers(t)
	tb := Summarize(runs, DefaultGroup(runs))
	var md bytes.Buffer
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	var mdRows []string
	for _, l := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| target") && !strings.HasPrefix(l, "| ---") {
			cells := strings.Split(l, " | ")
			mdRows = append(mdRows, strings.TrimPrefix(cells[0], "| ")+" / "+cells[1])
		}
	}
	want := []string{"cnosdb / CnosDB 2.4.2", "influx / InfluxDB 1.6.7~rc0", "influx / InfluxDB v2.7.12",
		"questdb / QuestDB 9.3.4", "timescale / PostgreSQL 15.18, no TimescaleDB"}
	if strings.Join(mdRows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("table rows:\n%s\nwant:\n%s\n%s", strings.Join(mdRows, "\n"), strings.Join(want, "\n"), md.String())
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	s := html.UnescapeString(string(page))
	_, cmp, _ := strings.Cut(s, `<table class="comparison">`)
	cmp, _, _ = strings.Cut(cmp, "</table>")
	var htmlRows []string
	for _, m := range regexp.MustCompile(`<tr(?: class="bad")?><td>([^<]*)</td><td>([^<]*)</td>`).FindAllStringSubmatch(cmp, -1) {
		htmlRows = append(htmlRows, m[1]+" / "+m[2])
	}
	if strings.Join(htmlRows, "\n") != strings.Join(mdRows, "\n") {
		t.Errorf("html rows:\n%s\ntable rows:\n%s", strings.Join(htmlRows, "\n"), strings.Join(mdRows, "\n"))
	}
	// The API column: the v2 run recorded it; the others did not.
	if !strings.Contains(md.String(), "| API |") || !strings.Contains(md.String(), "| v2 |") {
		t.Errorf("no API column:\n%s", md.String())
	}
}

// Settings that runs of different targets did not share are said under
// the table and on the page, read from old (text) and new (typed) files.
func TestDiffers(t *testing.T) {
	runs := fiveServers(t)
	got := strings.Join(Differs(runs), "\n")
	for _, want := range []string{"gzip: cnosdb false, influx true/false", "request timeout: cnosdb 1m0s, influx 1m0s, questdb 10s, timescale 5m0s"} {
		if !strings.Contains(got, want) {
			t.Errorf("differs lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "dedup") { // every run that records it: true
		t.Errorf("dedup listed as differing:\n%s", got)
	}
	var md bytes.Buffer
	Summarize(runs, DefaultGroup(runs)).WriteMarkdown(&md)
	if !strings.Contains(md.String(), "differs between runs: gzip: cnosdb false, influx true/false") {
		t.Errorf("table notes:\n%s", md.String())
	}
	page, _ := HTML(runs, nil, "")
	if !strings.Contains(html.UnescapeString(string(page)), "differs between runs: request timeout:") {
		t.Error("the page does not say what differs")
	}
	// One target: nothing to compare across.
	var one []Run
	for _, r := range runs {
		if r.Target == "influx" {
			one = append(one, r)
		}
	}
	if d := Differs(one); d != nil {
		t.Errorf("one target: %q", d)
	}
}
