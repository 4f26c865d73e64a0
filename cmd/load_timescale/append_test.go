package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/results"
)

// TestAppendVerifies loads the same file twice into one database without
// --drop-db: appending is a normal use, and the second run verifies what it
// added (rows before + acknowledged = rows after).
func TestAppendVerifies(t *testing.T) {
	base, db := freshDB(t, "tsload_append")
	in, _ := loadtest.InputFile(t, "in.ilp", "app_m,host=a v=1 1000000000\napp_m,host=b v=2 2000000000\napp_n,host=a w=3i 3000000000\n")
	for run := 1; run <= 2; run++ {
		r, res := loadInto(t, base, db, "", "--file", in)
		v := res.Verify
		if v == nil || !v.OK || v.Before["app_m"] != int64(2*(run-1)) || v.Actual["app_m"] != int64(2*run) || v.Actual["app_n"] != int64(run) {
			t.Fatalf("run %d: verify %+v\n%s", run, v, r.Stderr)
		}
		// The results say where the load went and that the tables are
		// hypertables (the server has TimescaleDB).
		s := res.Setup
		if s == nil || s.Database != db || len(s.Tables) != 2 || s.Tables[0].Hypertable == nil || !*s.Tables[0].Hypertable || res.SchemaVersion != results.SchemaVersion {
			t.Errorf("run %d: setup %+v", run, s)
		}
	}
}
