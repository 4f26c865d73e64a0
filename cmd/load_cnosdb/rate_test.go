package main

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestRate runs a paced and a stepped load into the real CnosDB
// (loadtest.PacedRuns), each into a fresh database.
func TestRate(t *testing.T) {
	base := cnosdbtest.RealURL(t)
	loadtest.PacedRuns(t, spec(), "rate", func(t *testing.T, table string) []string {
		db := cnosdbtest.UniqueDB(t)
		cnosdbtest.DropAtEnd(t, base, db)
		return []string{"--urls", base, "--db-name", db}
	})
}
