package influx

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkWrite measures the loader's side of one /write (gzip level 1,
// request, status handling) against a server that discards the body.
func BenchmarkWrite(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(204)
	}))
	defer srv.Close()
	for _, gz := range []bool{false, true} {
		name := "plain"
		if gz {
			name = "gzip1"
		}
		b.Run(name, func(b *testing.B) {
			tg, err := New(Config{API: APIv1, URLs: []string{srv.URL}, DBName: "d", Precision: "n", Gzip: gz, GzipLevel: 1})
			if err != nil {
				b.Fatal(err)
			}
			w, _ := tg.NewWriter(context.Background(), 0)
			batch := genBatches(5000, 5000, 1)[0]
			b.SetBytes(int64(len(batch.Data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := w.Write(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batch.Rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
