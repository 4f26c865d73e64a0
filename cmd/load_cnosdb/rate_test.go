package main

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestRate runs a paced and a stepped load into the real CnosDB
// (loadtest.PacedRuns), each into a fresh database.
func TestRate(t *testing.T) {
	loadtest.PacedRuns(t, spec(), "rate", loadtest.DBPerRun(cnosdbtest.RealURL(t), cnosdbtest.DropAtEnd))
}
