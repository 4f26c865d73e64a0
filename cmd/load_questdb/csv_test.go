package main

import (
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
