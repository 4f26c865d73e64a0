package cnosdb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// BenchmarkWrite measures the loader's side of one /api/v1/write against a
// server that discards the body.
func BenchmarkWrite(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&sb, "cpu,hostname=host_%d,region=eu usage_user=%d.5,usage_idle=1i %d\n", i%100, i, 1600000000000000000+int64(i/100)*1e10)
	}
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{loadtest.DiscardServer(b)}, User: "root"}, Tenant: "cnosdb", Precision: "ns", DBName: "d"})
	if err != nil {
		b.Fatal(err)
	}
	w, _ := tg.NewWriter(context.Background(), 0)
	loadtest.BenchWrite(b, w, batch(sb.String(), 1))
}
