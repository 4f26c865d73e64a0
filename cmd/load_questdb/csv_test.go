package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/owndatatest"
)

// TestCSV loads CSV into the real QuestDB as lines (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "csv_")
	owndatatest.CSVSuite{Spec: spec(), Args: func(t *testing.T, p string) []string {
		loadtest.DropQuestDBTables(t, httpURL, p)
		return []string{"--http-url", httpURL, "--pg", pg}
	}}.Run(t, prefix)
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "tsbs_")
	owndatatest.TSBSLines(t, spec(), prefix, "--http-url", httpURL, "--pg", pg, "--table-prefix", prefix)
}

// questdbSQL runs one statement over HTTP /exec and returns the answer.
func questdbSQL(t *testing.T, httpURL, sql string) string {
	t.Helper()
	resp, err := http.Get(httpURL + "/exec?query=" + url.QueryEscape(sql))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", sql, resp.StatusCode, body)
	}
	return string(body)
}

// TestCSVIntoExistingTable: an existing table's table_columns() decide
// how CSV rows are written: a STRING column gets a string (not a
// symbol), a DOUBLE column a float even where the file has an integer;
// a file with a column the table lacks is refused before anything is sent.
func TestCSVIntoExistingTable(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "own_")
	questdbSQL(t, httpURL, "CREATE TABLE "+prefix+"meter (ts TIMESTAMP, device SYMBOL, note STRING, kwh DOUBLE, n LONG) TIMESTAMP(ts) PARTITION BY DAY WAL")
	// The user's table has no DEDUP: the loader is told so.
	r := loadtest.RunOnInput(t, spec(), "meter.csv", "time,device,note,kwh,n\n2024-01-01T00:00:00Z,d1,hello,7,3\n2024-01-01T00:00:01Z,d2,,8.5,\n2024-01-01T00:00:02Z,d1,bye,9,5\n", "",
		"--http-url", httpURL, "--pg", pg, "--dedup=false", "--table-prefix", prefix)
	if res := r.Decoded(t); res.Verify == nil || !res.Verify.OK || res.Verify.Actual[prefix+"meter"] != 3 {
		t.Fatalf("verify %+v\n%s", res.Verify, r.Stderr)
	}
	got := questdbSQL(t, httpURL, "SELECT device, note, kwh, n FROM "+prefix+"meter ORDER BY ts")
	if !strings.Contains(got, `"dataset":[["d1","hello",7.0,3],["d2",null,8.5,null],["d1","bye",9.0,5]]`) {
		t.Fatalf("rows %s", got)
	}
	cols := questdbSQL(t, httpURL, "SELECT \"column\", type FROM table_columns('"+prefix+"meter')")
	if strings.Count(cols, `"SYMBOL"`) != 1 || strings.Contains(cols, `"time"`) {
		t.Fatalf("the table's columns changed: %s", cols)
	}
	loadtest.RunOnInput(t, spec(), "bad.csv", "time,device,volts\n2024-01-01T00:00:00Z,d1,7\n", "column volts: the input has it (int8), table "+prefix+"meter does not",
		"--http-url", httpURL, "--pg", pg, "--table-prefix", prefix, "--table", "meter")
}
