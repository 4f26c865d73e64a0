package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestRate runs a paced and a stepped load into the real QuestDB
// (loadtest.PacedRuns).
func TestRate(t *testing.T) {
	httpURL, pg := questdbServer(t)
	prefix := fmt.Sprintf("rate_%d", time.Now().UnixNano()%1e9)
	loadtest.DropQuestDBTables(t, httpURL, prefix)
	loadtest.PacedRuns(t, spec(), prefix, func(t *testing.T, table string) []string {
		return []string{"--http-url", httpURL, "--pg", pg}
	})
}
