package main

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/owndatatest"
)

// TestCSV loads CSV into the real CnosDB as lines (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	base := cnosdbtest.RealURL(t)
	owndatatest.CSVSuite{Spec: spec(), Args: func(t *testing.T, _ string) []string {
		db := cnosdbtest.UniqueDB(t)
		cnosdbtest.DropAtEnd(t, base, db)
		return []string{"--urls", base, "--db-name", db}
	}}.Run(t, "csv_")
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	base := cnosdbtest.RealURL(t)
	db := cnosdbtest.UniqueDB(t)
	cnosdbtest.DropAtEnd(t, base, db)
	owndatatest.TSBSLines(t, spec(), "", "--urls", base, "--db-name", db)
}
