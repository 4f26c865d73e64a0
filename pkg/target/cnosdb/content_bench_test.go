package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/contenttest"
)

// BenchmarkContent compares content verification with a count on a
// cpu-only table (scripts/bench_content.sh).
func BenchmarkContent(b *testing.B) {
	contenttest.BenchFile(b)
	base, db := cnosdbtest.RealDB(b)
	tg, err := New(Config{URLs: []string{base}, Tenant: "cnosdb", User: "root", Precision: "ns", DBName: db, Gzip: true, GzipLevel: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tg.Close() })
	rows := contenttest.BenchLoad(b, tg, "load_cnosdb", db)
	contenttest.BenchVerify(b, tg, rows)
}
