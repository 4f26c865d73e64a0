package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// BenchmarkContent compares content verification with a count on a
// cpu-only table (scripts/bench_content.sh).
func BenchmarkContent(b *testing.B) {
	contenttest.BenchFile(b)
	base, db := cnosdbtest.RealDB(b)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, User: "root", Gzip: true, GzipLevel: 1}, Tenant: "cnosdb", Precision: "ns", DBName: db})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tg.Close() })
	rows := contenttest.BenchLoad(b, tg, "load_cnosdb", db)
	contenttest.BenchVerify(b, tg, rows)
}
