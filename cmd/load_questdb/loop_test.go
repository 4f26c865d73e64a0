package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestLoop: a paced 2-second --loop --duration run into the real QuestDB,
// verified exactly, every pass's rows distinct (loadtest.QuestDBLoop).
func TestLoop(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "loop_")
	loadtest.QuestDBLoop(t, spec(), httpURL, pg, prefix+"_t")
}
