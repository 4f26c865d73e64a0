package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestRate runs a paced and a stepped load into the real PostgreSQL with
// TimescaleDB (loadtest.PacedRuns), each into a fresh database.
func TestRate(t *testing.T) {
	loadtest.PacedRuns(t, spec(), "rate", func(t *testing.T, table string) []string {
		base, db := freshDB(t, "tsload_"+table)
		return []string{"--postgres", base, "--db-name", db}
	})
}
