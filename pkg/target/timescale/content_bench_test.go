package timescale

import (
	"testing"

	"github.com/tsload/tsload/internal/contenttest"
)

// BenchmarkContent compares content verification with a count on a
// cpu-only table (scripts/bench_content.sh).
func BenchmarkContent(b *testing.B) {
	contenttest.BenchFile(b)
	requireServer(b)
	cfg := Config{URL: pgURL(), DBName: testDBName(b), UseHypertable: hypertableMode()}
	tg, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tg.Close(); dropDB(b, cfg.DBName) })
	rows := contenttest.BenchLoad(b, tg, "load_timescale", cfg.DBName)
	contenttest.BenchVerify(b, tg, rows)
}
