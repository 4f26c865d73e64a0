package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestRate runs a paced and a stepped load into the real QuestDB
// (loadtest.PacedRuns).
func TestRate(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "rate_")
	loadtest.PacedRuns(t, spec(), prefix, func(t *testing.T, table string) []string {
		return []string{"--http-url", httpURL, "--pg", pg}
	})
}
