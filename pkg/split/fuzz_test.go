package split

import (
	"bytes"
	"io"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
)

// checkSplit splits data and checks the invariants every splitter keeps
// whatever the input: no panic, whole batches within the batch size, rows
// adding up, data ending at a record boundary.
func checkSplit(t *testing.T, name string, data []byte, cfg Config) []load.Batch {
	cfg.MaxRecordBytes = 4096
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 3
	}
	bs, parts, sp, err := splitAll(name, data, cfg)
	rows := 0
	for i, b := range bs {
		if b.Rows <= 0 || b.Rows > cfg.BatchSize {
			t.Fatalf("batch %d has %d rows", i, b.Rows)
		}
		if parts[i] < 0 || parts[i] >= max(cfg.Parts, 1) {
			t.Fatalf("part %d", parts[i])
		}
		if b.Format != format.PGCopy && (len(b.Data) == 0 || b.Data[len(b.Data)-1] != '\n') {
			t.Fatalf("batch %d does not end in a newline: %q", i, b.Data)
		}
		if b.FirstRecord < 1 || b.Offset < 0 || b.Offset > int64(len(data))*8+1024 {
			t.Fatalf("batch %d position record %d offset %d", i, b.FirstRecord, b.Offset)
		}
		var tr int64
		for _, x := range b.Tables {
			tr += x.Rows
		}
		if tr != int64(b.Rows) {
			t.Fatalf("batch %d: tables count %d rows, batch %d", i, tr, b.Rows)
		}
		rows += b.Rows
	}
	if sp != nil && int64(rows) != sp.Rows() && err == nil {
		t.Fatalf("batches hold %d rows, splitter cut %d", rows, sp.Rows())
	}
	if err != nil && !IsMalformed(err) {
		var ge *GzipError
		_ = ge
	}
	return bs
}

func FuzzILP(f *testing.F) {
	f.Add([]byte(oneILPLine))
	f.Add(ilpLines(10))
	f.Add([]byte("# c\n\ncpu\\ x,a=b\\,c f=\"q\\\"s\" 1\r\nm f=1i\n"))
	f.Add([]byte("cpu,host=a f=1 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bs := checkSplit(t, "f.ilp", data, Config{Format: format.ILP})
		// Re-splitting what was cut gives the same rows (batches are valid input).
		var all []byte
		rows := 0
		for _, b := range bs {
			all = append(all, b.Data...)
			rows += b.Rows
		}
		if len(all) > 0 {
			again := checkSplit(t, "f.ilp", all, Config{Format: format.ILP, BatchSize: 1 << 20})
			n := 0
			for _, b := range again {
				n += b.Rows
			}
			if n != rows {
				t.Fatalf("re-split %d rows, first split %d", n, rows)
			}
		}
		checkSplit(t, "f.ilp", data, Config{Format: format.ILP, Parts: 3, SkipInvalid: true})
	})
}

func FuzzCSV(f *testing.F) {
	f.Add(cpuCSV(3, false))
	f.Add(cpuCSV(3, true))
	f.Add([]byte("time,v\n2016-01-01T00:00:00Z,\"a\"\"b\"\r\n\"x\ny\",1\n"))
	f.Add([]byte("#tsload-csv v1\n#table t time:timestamptz,h:text\n#data t\n2016-01-01T00:00:00Z,\"a\n\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplit(t, "t.csv", data, Config{Format: format.CSV})
		checkSplit(t, "t.csv", data, Config{Format: format.CSV, Parts: 2, SkipInvalid: true})
	})
}

func FuzzPGCopy(f *testing.F) {
	cpu := mustTable(f, "cpu")
	mem := mustTable(f, "mem")
	f.Add(pgFile(rowFor(cpu, "a"), rowFor(cpu, "b", 3)))
	f.Add(cat(tslHeader(cpu, mem), tslFrame(0, rowFor(cpu, "a")), tslFrame(1, rowFor(mem, "b")), []byte{0xff, 0xff}))
	f.Add(pgFile())
	f.Add(cat(pgChunkHeader(tableDecl(cpu)), rowFor(cpu, "a"), []byte{0xff, 0xff}))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplit(t, "stdin", data, Config{Format: format.PGCopy})
		checkSplit(t, "cpu.bin", data, Config{Format: format.PGCopy})
		checkSplit(t, "cpu.bin", data, Config{Format: format.PGCopy, Parts: 2, SkipInvalid: true})
	})
}

// FuzzInput exercises gzip and format detection on arbitrary bytes, both
// raw and gzip-compressed.
func FuzzInput(f *testing.F) {
	f.Add([]byte(oneILPLine), false)
	f.Add(gz([]byte(oneILPLine)), false)
	f.Add(cpuCSV(2, false), true)
	f.Add(pgFile(), true)
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0}, false)
	f.Fuzz(func(t *testing.T, data []byte, compress bool) {
		if compress {
			data = gz(data)
		}
		in, err := NewInput("x", bytes.NewReader(data), int64(len(data)), 4096)
		if err != nil {
			return
		}
		f, err := in.Detect()
		if err != nil {
			return
		}
		if f == format.Unknown {
			t.Fatal("unknown format")
		}
		n, err := io.Copy(io.Discard, in.br)
		if compress && err != nil {
			t.Fatalf("valid gzip failed after %d bytes: %v", n, err)
		}
		checkSplit(t, "cpu.gz", data, Config{})
	})
}
