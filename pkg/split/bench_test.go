package split

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// benchInputs are 100,000 rows of the cpu table in each format.
func benchInput(b *testing.B, f format.Format) (name string, data []byte, rows int) {
	const n = 100_000
	cpu := mustTable(b, "cpu")
	var buf bytes.Buffer
	switch f {
	case format.ILP:
		for i := 0; i < n; i++ {
			fmt.Fprintf(&buf, "cpu,hostname=host_%d,region=eu-west-1,datacenter=eu-west-1c,rack=22,os=Ubuntu15.10,arch=x86,team=LON,service=11,service_version=0,service_environment=staging usage_user=2.26,usage_system=0.77,usage_idle=0.54,usage_nice=0,usage_iowait=1.89,usage_irq=0.54,usage_softirq=0.74,usage_steal=0,usage_guest=0,usage_guest_nice=1.21 %d\n", i%100, 1451606400000000000+int64(i)*10)
		}
		return "cpu.ilp", buf.Bytes(), n
	case format.CSV:
		buf.Write(cpuCSV(0, false))
		for i := 0; i < n; i++ {
			fmt.Fprintf(&buf, "2016-01-01T00:00:%02dZ,host_%d,eu-west-1,eu-west-1c,22,Ubuntu15.10,x86,LON,11,0,staging,2.26,0.77,0.54,0,1.89,0.54,0.74,0,0,1.21\n", i%60, i%100)
		}
		return "cpu.csv", buf.Bytes(), n
	default:
		buf.Write(pgHeader())
		for i := 0; i < n; i++ {
			buf.Write(rowFor(cpu, fmt.Sprint("host_", i%100)))
		}
		buf.Write([]byte{0xff, 0xff})
		return "cpu.bin", buf.Bytes(), n
	}
}

func benchSplit(b *testing.B, f format.Format, parts int) {
	benchSplitCfg(b, f, Config{Parts: parts})
}

func benchSplitCfg(b *testing.B, f format.Format, cfg Config) {
	name, data, rows := benchInput(b, f)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var batch load.Batch
	// Warm up the batch buffers so the measured loop is steady state.
	run := func() {
		in, err := NewInput(name, bytes.NewReader(data), int64(len(data)), 0)
		if err != nil {
			b.Fatal(err)
		}
		cfg.BatchSize, cfg.Lookup = 5000, usecase.LookupTable
		sp, err := New(in, cfg)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := sp.Next(&batch)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += batch.Rows
		}
		if n != rows {
			b.Fatalf("%d rows, want %d", n, rows)
		}
	}
	run()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkSplitILP(b *testing.B)          { benchSplit(b, format.ILP, 1) }
func BenchmarkSplitILPHashed(b *testing.B)    { benchSplit(b, format.ILP, 4) }
func BenchmarkSplitCSV(b *testing.B)          { benchSplit(b, format.CSV, 1) }
func BenchmarkSplitPGCopy(b *testing.B)       { benchSplit(b, format.PGCopy, 1) }
func BenchmarkSplitPGCopyHashed(b *testing.B) { benchSplit(b, format.PGCopy, 4) }

// BenchmarkSplitILPDeferred is the reader's share with the checks left to
// the workers (Config.DeferChecks).
func BenchmarkSplitILPDeferred(b *testing.B) { benchSplitCfg(b, format.ILP, Config{DeferChecks: true}) }

// BenchmarkCheckILP is a worker's share: Checker.Check on 5000-line batches.
func BenchmarkCheckILP(b *testing.B) {
	_, data, rows := benchInput(b, format.ILP)
	var batches []load.Batch
	for p := 0; p < len(data); {
		end, n := p, 0
		for n < 5000 && end < len(data) {
			end += bytes.IndexByte(data[end:], '\n') + 1
			n++
		}
		batches = append(batches, load.Batch{Format: format.ILP, Data: data[p:end], Rows: n, FirstRecord: 1, FirstLine: 1, Source: "cpu.ilp"})
		p = end
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var c Checker
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range batches {
			bt := batches[j]
			bt.Unchecked = true
			if _, err := c.Check(&bt, false); err != nil || bt.Metrics == 0 {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// benchDecode reads a compressed copy of the ILP bench input through an
// Input: the parallel decoder and the read-ahead.
func benchDecode(b *testing.B, compress func([]byte) []byte) {
	_, data, rows := benchInput(b, format.ILP)
	data = bytes.Repeat(data, 4) // several jobs
	rows *= 4
	z := compress(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, err := NewInput("cpu.ilp.z", bytes.NewReader(z), int64(len(z)), 0)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, in.br)
		if err != nil || n != int64(len(data)) {
			b.Fatal(n, err)
		}
		in.Close()
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkDecodeGzipMembers(b *testing.B) {
	benchDecode(b, func(d []byte) []byte { return gzSized(chunks(d, 1<<20)...) })
}
func BenchmarkDecodeGzipOneMember(b *testing.B) {
	benchDecode(b, func(d []byte) []byte { return gz(d) })
}
func BenchmarkDecodeZstdFrames(b *testing.B) {
	benchDecode(b, func(d []byte) []byte { return zstdFrames(chunks(d, 4<<20)...) })
}
