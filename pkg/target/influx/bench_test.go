package influx

import (
	"context"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// BenchmarkWrite measures the loader's side of one /write (gzip level 1,
// request, status handling) against a server that discards the body.
func BenchmarkWrite(b *testing.B) {
	url := loadtest.DiscardServer(b)
	for _, gz := range []bool{false, true} {
		name := "plain"
		if gz {
			name = "gzip1"
		}
		b.Run(name, func(b *testing.B) {
			tg, err := New(Config{API: APIv1, Conn: httpwrite.Conn{URLs: []string{url}, Gzip: gz, GzipLevel: 1}, DBName: "d", Precision: "n"})
			if err != nil {
				b.Fatal(err)
			}
			w, _ := tg.NewWriter(context.Background(), 0)
			loadtest.BenchWrite(b, w, genBatches(5000, 5000, 1)[0])
		})
	}
}
