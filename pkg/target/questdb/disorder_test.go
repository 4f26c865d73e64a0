package questdb

import (
	"testing"
	"time"

	"github.com/tsload/tsload/internal/disordertest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// TestDisorder loads generate_data's out-of-order and repeated files and
// verifies them, by count and by content: with DEDUP UPSERT KEYS QuestDB
// keeps one row per (series, time) key (the last written), without it
// every row.
func TestDisorder(t *testing.T) {
	s := server(t)
	for _, dedup := range []bool{true, false} {
		name := "nodedup"
		if dedup {
			name = "dedup"
		}
		t.Run(name, func(t *testing.T) {
			disordertest.Run(t, func(t *testing.T) (load.Target, runner.Config) {
				tg, err := New(Config{URL: s.http, PG: s.pg, Dedup: dedup, WALTimeout: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tg.Close() })
				return tg, runner.Config{BatchSize: 500, Workers: 2,
					Prepare: load.PrepareOptions{CreateDB: true, DropDB: true}, TablePrefix: uniqueName(t, "dis") + "_",
					Loader: "load_questdb", Target: "questdb"}
			}, !dedup)
		})
	}
}
