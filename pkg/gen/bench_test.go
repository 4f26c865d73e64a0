package gen

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

// countWriter counts bytes written.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkGenerate measures one worker per use case x format, writing to
// a counting io.Writer. One b.N iteration is one epoch of a fixed scale, so
// the per-row cost and allocations are those of the steady state.
func BenchmarkGenerate(b *testing.B) {
	scales := map[string]int{usecase.CPUOnly: 1000, usecase.DevOps: 100, usecase.IoT: 1000, usecase.Weather: 10000}
	for _, uc := range usecase.Names {
		for _, f := range []format.Format{format.ILP, format.CSV, format.PGCopy} {
			b.Run(uc+"/"+f.String(), func(b *testing.B) {
				cfg := Config{UseCase: uc, Format: f, Seed: 1, Scale: scales[uc], Workers: 1,
					Interval: time.Second, End: DefaultStart.Add(time.Duration(b.N) * time.Second)}
				w := &countWriter{}
				cfg.Stdout = w
				cfg.Stderr = io.Discard
				b.ReportAllocs()
				b.ResetTimer()
				st, err := Generate(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				b.SetBytes(w.n / int64(b.N))
				b.ReportMetric(float64(st.Rows)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(st.Rows)/float64(b.N), "rows/op")
			})
		}
	}
}
