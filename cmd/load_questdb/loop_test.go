package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestLoop: a paced 2-second --loop --duration run into the real QuestDB,
// verified exactly, every pass's rows distinct (loadtest.QuestDBLoop).
func TestLoop(t *testing.T) {
	httpURL, pg := questdbServer(t)
	prefix := fmt.Sprintf("loop_%d", time.Now().UnixNano()%1e9)
	loadtest.DropQuestDBTables(t, httpURL, prefix)
	loadtest.QuestDBLoop(t, spec(), httpURL, pg, prefix+"_t")
}
