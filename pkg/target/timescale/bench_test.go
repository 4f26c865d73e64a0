package timescale

import (
	"context"
	"fmt"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	csvformat "github.com/tsload/tsload/pkg/format/csv"
)

func BenchmarkCSVRecord(b *testing.B) {
	rows := genRows(cpuTable(), 5000, 100, 1)
	data := csvRecords(rows)
	fields := make([][]byte, len(cpuTable().Columns))
	scratch := make([]byte, 0, len(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		scratch = scratch[:0]
		for off := 0; off < len(data); {
			next, _, err := csvformat.ParseRecord(data, off, fields, &scratch)
			if err != nil {
				b.Fatal(err)
			}
			off = next
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkNextTuple(b *testing.B) {
	rows := genRows(cpuTable(), 5000, 100, 1)
	data := pgcopyTuples(rows)
	cols := cpuTable().Columns
	fields := make([][]byte, len(cols))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(data); {
			next, err := nextTuple(data, off, cols, fields)
			if err != nil {
				b.Fatal(err)
			}
			off = next
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWrite writes 5000-row cpu batches through one Writer into the
// server (skipped without one): the per-method cost on one connection.
func BenchmarkWrite(b *testing.B) {
	rows := genRows(cpuTable(), 5000, 100, 1)
	for _, c := range []struct {
		f format.Format
		m Method
	}{
		{format.PGCopy, MethodCopyBinary},
		{format.CSV, MethodCopyCSV},
		{format.ILP, MethodCopyBinary},
		{format.PGCopy, MethodInsertMulti},
	} {
		b.Run(fmt.Sprintf("%s/%s", c.f, c.m), func(b *testing.B) {
			tg := newTestTarget(b, Config{Method: c.m}, cpuTable())
			w, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			batch := makeBatches(b, c.f, rows, len(rows))[0]
			b.SetBytes(int64(len(batch.Data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Write(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
