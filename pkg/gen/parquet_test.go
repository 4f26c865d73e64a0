package gen

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/parquet"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestParquetDeterministic: the same flags and seed give the same Parquet
// bytes at any worker count, a row group every RowGroupRows rows; a use
// case of several tables writes a file per table.
func TestParquetDeterministic(t *testing.T) {
	start := DefaultStart
	var files [][]byte
	for _, w := range []int{1, 3} {
		var out bytes.Buffer
		st, err := Generate(context.Background(), Config{UseCase: usecase.CPUOnly, Format: format.Parquet, Seed: 3, Scale: 7,
			Start: start, End: start.Add(time.Hour), Workers: w, RowGroupRows: 1000, Stdout: &out, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.Open(bytes.NewReader(out.Bytes()), int64(out.Len()), "cpu.parquet", parquet.Options{Table: "cpu", Lookup: usecase.LookupTable})
		if err != nil {
			t.Fatal(err)
		}
		if pf.NumRows() != st.Rows || st.Rows != 7*360 || pf.NumRowGroups() != 3 {
			t.Fatalf("workers %d: %d rows (%d generated) in %d row groups", w, pf.NumRows(), st.Rows, pf.NumRowGroups())
		}
		files = append(files, out.Bytes())
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("1 and 3 workers wrote different bytes")
	}

	dir := t.TempDir()
	if _, err := Generate(context.Background(), Config{UseCase: usecase.IoT, Format: format.Parquet, Seed: 3, Scale: 2,
		Start: start, End: start.Add(time.Hour), OutDir: dir, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"readings.parquet", "diagnostics.parquet"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		table := strings.TrimSuffix(name, ".parquet")
		pf, err := parquet.Open(bytes.NewReader(data), int64(len(data)), name, parquet.Options{Table: table, Lookup: usecase.LookupTable})
		if err != nil {
			t.Fatal(err)
		}
		if want := usecase.LookupTable(table); pf.NumRows() == 0 || len(pf.Table().Columns) != len(want.Columns) || pf.Table().Columns[3] != want.Columns[3] {
			t.Fatalf("%s: %d rows, table %+v", name, pf.NumRows(), pf.Table())
		}
	}
}

// TestParquetRefused: what a Parquet output cannot be.
func TestParquetRefused(t *testing.T) {
	for _, c := range []struct {
		cfg Config
		err string
	}{
		{Config{UseCase: usecase.DevOps, Format: format.Parquet}, "use case devops has 9 tables and a Parquet file holds one"},
		{Config{UseCase: usecase.CPUOnly, Format: format.Parquet, Gzip: true}, "Parquet output is not compressed as a whole"},
		{Config{UseCase: usecase.CPUOnly, Format: format.CSV, RowGroupRows: 5}, "rows per row group: Parquet output only"},
	} {
		c.cfg.Seed, c.cfg.Stdout, c.cfg.Stderr = 1, io.Discard, io.Discard
		if _, err := Generate(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: err %v, want %q", c.cfg, err, c.err)
		}
	}
}
