package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/disordertest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestDisorder loads generate_data's out-of-order and repeated files and
// verifies them, by count and by content: CnosDB stores one point per
// (series, time) key.
func TestDisorder(t *testing.T) {
	disordertest.Run(t, func(t *testing.T) (load.Target, runner.Config) {
		base, db := cnosdbtest.RealDB(t)
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, User: "root", Gzip: true, GzipLevel: 1}, Tenant: "cnosdb", Precision: "ns", DBName: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		rc := runnerConfig("", db, nil)
		rc.BatchSize = 500
		return tg, rc
	}, false)
}
