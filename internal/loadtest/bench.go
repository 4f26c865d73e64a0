package loadtest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tsload/tsload/pkg/load"
)

// DiscardServer is the URL of an HTTP server that reads and discards every
// request body and answers 204, closed when the benchmark ends: a writer
// benchmark measures the loader's side alone.
func DiscardServer(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(204)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchWrite measures w.Write of batch, b.N times, in bytes/s and rows/s.
func BenchWrite(b *testing.B, w load.Writer, batch *load.Batch) {
	b.SetBytes(int64(len(batch.Data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := w.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch.Rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
