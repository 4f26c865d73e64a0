package main

import (
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/owndatatest"
)

// TestCSV loads CSV into the real CnosDB as lines (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	owndatatest.CSVSuite{Spec: spec(), Args: loadtest.DBPerRun(cnosdbtest.RealURL(t), cnosdbtest.DropAtEnd)}.Run(t, "csv_")
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	owndatatest.TSBSLines(t, spec(), "", "--urls", base, "--db-name", db)
}

// TestCSVIntoExistingTable: an existing table's DESCRIBE TABLE decides how
// CSV rows are written: its TAG column a tag, its DOUBLE column a float
// where the file has integers (CnosDB refuses an integer for a DOUBLE
// field), its STRING field a string.
func TestCSVIntoExistingTable(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	sql := func(stmt string) string {
		st, body, err := cnosdbtest.SQL(base, "root", "", db, stmt)
		if err != nil || st != 200 {
			t.Fatalf("%s: %d %s %v", stmt, st, body, err)
		}
		return body
	}
	if st, body, err := cnosdbtest.SQL(base, "root", "", "", "CREATE DATABASE "+db); err != nil || st != 200 {
		t.Fatalf("create database: %d %s %v", st, body, err)
	}
	sql("CREATE TABLE meter (kwh DOUBLE, note STRING, n BIGINT, TAGS(device))")
	r := loadtest.RunOnInput(t, spec(), "meter.csv", "time,device,note,kwh,n\n2024-01-01T00:00:00Z,d1,hello,7,3\n2024-01-01T00:00:01Z,d2,x,8,4\n", "",
		"--urls", base, "--db-name", db, "--do-create-db=false")
	if res := r.Decoded(t); res.Verify == nil || !res.Verify.OK || res.Verify.Actual["meter"] != 2 {
		t.Fatalf("verify %+v\n%s", res.Verify, r.Stderr)
	}
	if got := sql("SELECT device, note, kwh, n FROM meter ORDER BY time"); !strings.Contains(got, `"note":"hello"`) || !strings.Contains(got, `"kwh":8.0`) {
		t.Fatalf("rows %s", got)
	}
}
