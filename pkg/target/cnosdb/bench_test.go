package cnosdb

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkWrite measures the loader's side of one /api/v1/write against a
// server that discards the body.
func BenchmarkWrite(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	var sb strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&sb, "cpu,hostname=host_%d,region=eu usage_user=%d.5,usage_idle=1i %d\n", i%100, i, 1600000000000000000+int64(i/100)*1e10)
	}
	batch := batch(sb.String(), 1)
	tg, err := New(Config{URLs: []string{srv.URL}, Tenant: "cnosdb", User: "root", Precision: "ns", DBName: "d"})
	if err != nil {
		b.Fatal(err)
	}
	w, _ := tg.NewWriter(context.Background(), 0)
	b.SetBytes(int64(len(batch.Data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := w.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch.Rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
