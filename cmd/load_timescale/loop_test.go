package main

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/servertest"
	"github.com/tsload/tsload/pkg/format"
)

// TestLoop replays an hour of cpu-only data (3 hosts, 1,080 rows) three
// times into the real TimescaleDB, as pgcopy and as CSV (--loop --limit):
// verified exactly, and the table holds 3,240 distinct (hostname, time),
// the passes 3590 s + 1 µs apart.
func TestLoop(t *testing.T) {
	gentest.CPUHourEach(t, func(t *testing.T, f format.Format, data []byte, rows int64) {
		base, db := freshDB(t, "tsload_loop")
		in, _ := loadtest.InputFile(t, "cpu."+f.String(), string(data))
		r, res := loadInto(t, base, db, "", "--file", in, "--batch-size", "250", "--workers", "2", "--loop", "--limit", "3240")
		if rows != 1080 || res.Rows != 3240 || res.Verify == nil || !res.Verify.OK || res.Loop == nil || res.Loop.Passes != 3 || res.Loop.Span != 3590e6+1 {
			t.Fatalf("rows %d of 3x%d, verify %+v, loop %+v\n%s", res.Rows, rows, res.Verify, res.Loop, r.Stderr)
		}
		conn := servertest.PGConnectDB(t, db)
		var n int64
		var span time.Duration
		if err := conn.QueryRow(context.Background(), `SELECT count(DISTINCT (hostname, time)), max(time) - min(time) FROM cpu`).Scan(&n, &span); err != nil {
			t.Fatal(err)
		}
		if want := 2*(3590*time.Second+time.Microsecond) + 3590*time.Second; n != 3240 || span != want {
			t.Fatalf("%d distinct (hostname, time), span %s; want 3240, %s", n, span, want)
		}
	})
}
