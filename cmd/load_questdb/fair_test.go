package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestDropDBKeepsOtherTable loads a table that is not a use-case table
// twice with --drop-db: QuestDB leaves it alone (it drops use-case tables
// only), so the second run counts its rows before loading and verifies.
// Before, the runner took "before" as 0 for every table under --drop-db and
// the second run failed with "another client changed the tables".
func TestDropDBKeepsOtherTable(t *testing.T) {
	httpURL, pg, table := questdbTables(t, "dropkeep_")
	var b strings.Builder
	const rows = 500
	for i := range rows {
		fmt.Fprintf(&b, "%s,host=h%d usage=%d.5 %d\n", table, i%10, i, 1451606400000000000+int64(i)*1e9)
	}
	file, _ := loadtest.InputFile(t, "in.ilp", b.String())
	for run := 1; run <= 2; run++ {
		r, res := loadInto(t, httpURL, pg, "--file", file, "--drop-db")
		v := res.Verify
		if v == nil || !v.OK || v.Before[table] != int64(rows*(run-1)) || v.Actual[table] != int64(rows*run) {
			t.Fatalf("run %d: verify %+v\n%s", run, v, r.Stderr)
		}
		// The results record what was done: QuestDB created the table
		// (WAL, no DEDUP) although --dedup defaults to true, and
		// load_questdb has no use for --db-name.
		s := res.Setup
		if res.Flags["dedup"] != false || s == nil || len(s.Tables) != 1 || s.Tables[0].Name != table || s.Tables[0].Dedup == nil || *s.Tables[0].Dedup || s.URL != httpURL {
			t.Errorf("run %d: flags %v setup %+v", run, res.Flags, s)
		}
		if _, ok := res.Flags["db-name"]; ok {
			t.Errorf("run %d: --db-name recorded: %v", run, res.Flags)
		}
		if !strings.Contains(r.Stderr, "into questdb at "+httpURL+" (ilp/http), tables "+table+"; server QuestDB") {
			t.Errorf("run %d: the summary does not say where the load went:\n%s", run, r.Stderr)
		}
	}
}
