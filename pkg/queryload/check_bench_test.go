//go:build unix

package queryload

import (
	"bytes"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/query"
)

// BenchmarkQueryCheck is what checking answers costs the loader, over
// cpu-only scale 100, 6 h (216,000 rows), cut in batches of 5,000 rows:
//   - timerange: the time range of every batch, what the watermark reads
//     of each acknowledged batch when answers are not checked (the
//     baseline);
//   - store: every batch read into the partials of all five query types,
//     which gives the watermark its time range too (once per load:
//     compare its ns/row with timerange's);
//   - answer/<type>: one expected answer over the type's widest window
//     (per check).
func BenchmarkQueryCheck(b *testing.B) {
	path, rows := generatedAs(b, "cpu.ilp", "cpu-only", 100, 6*time.Hour)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var batches [][]byte
	for len(data) > 0 {
		n := 0
		for i := 0; i < 5000 && n < len(data); i++ {
			n += bytes.IndexByte(data[n:], '\n') + 1
		}
		batches, data = append(batches, data[:n]), data[n:]
	}
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	ds := query.Dataset{UseCase: "cpu-only", Scale: 100}
	kinds := query.Kinds("cpu-only")
	// CPU time, not wall time: the machine may be shared.
	perRow := func(b *testing.B, cpu0 time.Duration) {
		b.ReportMetric(float64((procCPU(b)-cpu0).Nanoseconds())/float64(int64(b.N)*rows), "cpu-ns/row")
	}
	b.Run("timerange", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := procCPU(b)
		for b.Loop() {
			for _, d := range batches {
				if _, _, _, err := ilp.TimeRange(d); err != nil {
					b.Fatal(err)
				}
			}
		}
		perRow(b, cpu0)
	})
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := procCPU(b)
		for b.Loop() {
			s, _ := newCheckStore(kinds, &ds, start, 1, false)
			for _, d := range batches {
				if _, _, _, err := s.add(d); err != nil {
					b.Fatal(err)
				}
			}
		}
		perRow(b, cpu0)
	})
	s, _ := newCheckStore(kinds, &ds, start, 1, false)
	for _, d := range batches {
		if _, _, _, err := s.add(d); err != nil {
			b.Fatal(err)
		}
	}
	for ki, k := range kinds {
		q := k.Build(&ds, 1, start, start.Add(6*time.Hour))
		b.Run("answer/"+k.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := s.answer(ki, q); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}

// procCPU is the process's CPU time so far (user and system).
func procCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
