package main

import (
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
)

// TestTablePrefix loads a cpu-only file (table "cpu") with --table-prefix
// and --drop-db, twice, into the shared QuestDB: the table is P+cpu,
// created from the use case's schema (DEDUP: the prefix is taken off for
// the lookup), dropped by the second run and verified under its own name.
// No table "cpu" is created, dropped or counted.
func TestTablePrefix(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "pfx")
	prefix += "_"
	dir := t.TempDir()
	file, rows := gentest.GenFile(t, dir, "cpu.ilp", "cpu-only", format.ILP, 5, time.Hour)
	table := prefix + "cpu"
	for run := 1; run <= 2; run++ {
		r, res := loadInto(t, httpURL, pg, "--file", file, "--table-prefix", prefix, "--drop-db")
		v := res.Verify
		if v == nil || !v.OK || len(v.Actual) != 1 || v.Actual[table] != rows || v.Before[table] != 0 {
			t.Fatalf("run %d: verify %+v\n%s", run, v, r.Stderr)
		}
		s := res.Setup
		if s == nil || len(s.Tables) != 1 || s.Tables[0].Name != table || s.Tables[0].Dedup == nil || !*s.Tables[0].Dedup || res.Flags["table-prefix"] != prefix {
			t.Fatalf("run %d: setup %+v flags %v", run, s, res.Flags)
		}
	}
}
