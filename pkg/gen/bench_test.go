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
				benchEpochs(b, Config{UseCase: uc, Format: f, Scale: scales[uc]})
			})
		}
	}
}

// BenchmarkDisorder is BenchmarkGenerate's cpu-only ILP (1000 hosts, one
// epoch an op) in order and with each kind of disorder, so that their cost
// shows as a ratio in one run.
func BenchmarkDisorder(b *testing.B) {
	for _, c := range []struct {
		name string
		d    Disorder
	}{
		{"none", Disorder{}},
		{"out-of-order-30", Disorder{OutOfOrder: 0.3, OutOfOrderWindow: time.Minute}},
		{"late-10", Disorder{Late: 0.1, LateBy: time.Minute}},
		{"repeat-5-changes", Disorder{Repeat: 0.05, RepeatChanges: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchEpochs(b, Config{UseCase: usecase.CPUOnly, Format: format.ILP, Scale: 1000, Disorder: c.d})
		})
	}
}

// benchEpochs generates b.N epochs of cfg (seed 1, one worker, 1 s apart)
// to a counting writer and reports bytes, rows/s and rows per epoch.
func benchEpochs(b *testing.B, cfg Config) {
	cfg.Seed, cfg.Workers, cfg.Interval = 1, 1, time.Second
	cfg.End = DefaultStart.Add(time.Duration(b.N) * time.Second)
	w := &countWriter{}
	cfg.Stdout, cfg.Stderr = w, io.Discard
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
}
