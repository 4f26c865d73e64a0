package victoriametrics

import (
	"testing"
	"time"

	"github.com/tsload/tsload/internal/disordertest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestDisorder loads generate_data's out-of-order and repeated files and
// verifies them: with -dedup.minScrapeInterval=1ms (the start script's)
// VictoriaMetrics keeps one sample per series and millisecond, so one row
// per (series, time) key.
func TestDisorder(t *testing.T) {
	disordertest.Run(t, func(t *testing.T) (load.Target, runner.Config) {
		base, db := vmtest.RealDB(t)
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, Gzip: true, GzipLevel: 1, RequestTimeout: 30 * time.Second}, Precision: "ns", DBName: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, runner.Config{BatchSize: 500, Workers: 2,
			Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
			Loader:  "load_victoriametrics", Target: "victoriametrics"}
	}, false)
}
