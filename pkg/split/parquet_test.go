package split

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// splitParquetFile splits the file at path and returns its batches' data
// concatenated, the rows, metrics and the batches.
func splitParquetFile(t testing.TB, path string, cfg Config) (data []byte, rows, metrics int64, batches []load.Batch) {
	t.Helper()
	in, err := Open(path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if cfg.Lookup == nil {
		cfg.Lookup = usecase.LookupTable
	}
	sp, err := New(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Release()
	var b load.Batch
	for {
		_, err := sp.Next(&b)
		if err == io.EOF {
			return data, rows, metrics, batches
		}
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b.Data...)
		rows += int64(b.Rows)
		metrics += int64(b.Metrics)
		c := b
		c.Data, c.Hold, c.Tables = nil, nil, append([]load.TableRows(nil), b.Tables...)
		batches = append(batches, c)
	}
}

// TestParquetSameAsGenerated: a Parquet file of generate_data turned into
// COPY tuples or line protocol is, byte for byte, what generate_data
// writes in those formats for the same seed, in batches numbered in file
// order, with the row groups read by several readers at once.
func TestParquetSameAsGenerated(t *testing.T) {
	for _, uc := range []string{usecase.CPUOnly, usecase.Weather} {
		t.Run(uc, func(t *testing.T) {
			dir := t.TempDir()
			pqPath := genData(t, dir, uc, format.Parquet, 3, 333)
			for _, as := range []format.Format{format.PGCopy, format.ILP} {
				ref := genData(t, t.TempDir(), uc, as, 3, 0)
				want, wantRows, wantMetrics, _ := splitParquetFile(t, ref, Config{BatchSize: 100})
				got, rows, metrics, batches := splitParquetFile(t, pqPath, Config{BatchSize: 100, ParquetAs: as, ParquetReaders: 3})
				if !bytes.Equal(got, want) {
					i := 0
					for i < min(len(got), len(want)) && got[i] == want[i] {
						i++
					}
					t.Fatalf("%s: %d bytes, want %d; first difference at byte %d: %q, want %q", as, len(got), len(want), i,
						got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
				}
				if rows != wantRows || metrics != wantMetrics {
					t.Fatalf("%s: %d rows %d metrics, want %d and %d", as, rows, metrics, wantRows, wantMetrics)
				}
				next := int64(1)
				for _, b := range batches {
					if b.Format != as || b.FirstRecord != next || b.Rows > 100 || len(b.Tables) != 1 || b.Tables[0].Rows != int64(b.Rows) {
						t.Fatalf("%s: batch %+v, want its first record %d", as, b, next)
					}
					next += int64(b.Rows)
				}
			}
		})
	}
}

// TestParquetPartsAndLimit: routed batches keep every series on one
// part; a limit stops at exactly that many rows.
func TestParquetPartsAndLimit(t *testing.T) {
	path := genData(t, t.TempDir(), usecase.CPUOnly, format.Parquet, 3, 500)
	_, all, _, _ := splitParquetFile(t, path, Config{ParquetAs: format.ILP})
	in, err := Open(path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sp, err := New(in, Config{ParquetAs: format.ILP, Parts: 3, BatchSize: 64, ParquetReaders: 2})
	if err != nil {
		t.Fatal(err)
	}
	partOf := map[string]int{}
	var rows int64
	var b load.Batch
	for {
		part, err := sp.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows += int64(b.Rows)
		for _, line := range strings.Split(strings.TrimSuffix(string(b.Data), "\n"), "\n") {
			key := line[:strings.IndexByte(line, ' ')]
			if p, ok := partOf[key]; ok && p != part {
				t.Fatalf("series %s in parts %d and %d", key, p, part)
			}
			partOf[key] = part
		}
	}
	if rows != all || len(partOf) != 3 {
		t.Fatalf("%d rows of %d, %d series", rows, all, len(partOf))
	}

	in2, err := Open(path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Close()
	sp, err = New(in2, Config{ParquetAs: format.PGCopy, BatchSize: 64, ParquetReaders: 2})
	if err != nil {
		t.Fatal(err)
	}
	sp.SetLimit(777)
	rows = 0
	for {
		_, err := sp.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows += int64(b.Rows)
	}
	if rows != 777 || sp.Rows() != 777 {
		t.Fatalf("limit 777: %d rows (%d)", rows, sp.Rows())
	}
}

// TestParquetRefused: a Parquet file is read from its end, so a stream
// or a compressed file is refused with the reason; so is another format
// forced on it, a file whose end is missing, and a column type tsload
// does not load, all before any batch.
func TestParquetRefused(t *testing.T) {
	dir := t.TempDir()
	path := genData(t, dir, usecase.CPUOnly, format.Parquet, 3, 0)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unsupported, err := filepath.Abs("../format/parquet/testdata/unsupported.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		open func() (*Input, error)
		cfg  Config
		err  string
	}{
		{"stdin", func() (*Input, error) { return Open("-", bytes.NewReader(data), 0) }, Config{},
			"stdin: Parquet input must be a file: it is read from its footer at the end, which a stream cannot give"},
		{"gzip", func() (*Input, error) { return Open(write("cpu.parquet.gz", gz(data)), nil, 0) }, Config{},
			"cpu.parquet.gz: a compressed Parquet file: Parquet is read from its footer at the end"},
		{"truncated", func() (*Input, error) { return Open(write("cut.parquet", data[:len(data)-100]), nil, 0) }, Config{},
			"cut.parquet: truncated Parquet file: no PAR1 magic at its end"},
		{"csv forced", func() (*Input, error) { return Open(path, nil, 0) }, Config{Format: format.CSV},
			"cpu.parquet: format csv given but the input is a Parquet file"},
		{"parquet forced", func() (*Input, error) { return Open(write("x.ilp", []byte("m v=1 1\n")), nil, 0) }, Config{Format: format.Parquet},
			`x.ilp: format parquet given but the input does not start with the Parquet magic "PAR1"`},
		{"unsupported", func() (*Input, error) { return Open(unsupported, nil, 0) }, Config{},
			`unsupported.parquet: column "ok" is BOOLEAN, which tsload does not load`},
		{"columns", func() (*Input, error) { return Open(path, nil, 0) }, Config{Mapping: load.Mapping{Columns: []string{"a"}}},
			"a Parquet file names its columns"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := c.open()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			_, err = New(in, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err %v, want %q", err, c.err)
			}
		})
	}
}

// BenchmarkParquet measures turning a Parquet file's rows into COPY
// tuples and line protocol (bytes: the Parquet file's).
func BenchmarkParquet(b *testing.B) {
	path := genData(b, b.TempDir(), usecase.CPUOnly, format.Parquet, 3, 0)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, as := range []format.Format{format.PGCopy, format.ILP} {
		b.Run(as.String(), func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			var rows int64
			for b.Loop() {
				_, n, _, _ := splitParquetFile(b, path, Config{ParquetAs: as, ParquetReaders: 1})
				rows += n
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
