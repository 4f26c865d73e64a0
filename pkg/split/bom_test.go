package split

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
)

// TestBOM: a UTF-8 byte-order mark at the start of an ILP or CSV input is
// not part of the first record (the rows and table names are those of the
// input without it) and byte offsets count it; before a pgcopy signature
// it is refused.
func TestBOM(t *testing.T) {
	cpu := mustTable(t, "cpu")
	badILP := "cpu,host=a f=1 1\ncpu,host=a 2\n"
	badCSV := append(cpuCSV(1, false), "2016-01-01T00:00:00Z,h,1\n"...)
	for _, tc := range []struct {
		name, source string
		data         []byte
		cfg          Config
		err          string // with the BOM; "" = valid, the same batches as without it
	}{
		{"ilp", "d.ilp", ilpLines(50), Config{}, ""},
		{"ilp routed", "d.ilp", ilpLines(50), Config{Parts: 3}, ""},
		{"ilp deferred", "d.ilp", ilpLines(50), Config{DeferChecks: true}, ""},
		{"ilp error offset", "d.ilp", []byte(badILP), Config{}, "d.ilp: record 2 (line 2, byte offset 20): field without key=value"},
		{"ilp gzip", "d.ilp.gz", nil, Config{}, ""},
		{"csv", "cpu.csv", cpuCSV(20, false), Config{}, ""},
		{"csv from stdin (table from the header)", "stdin", cpuCSV(20, false), Config{}, ""},
		{"csv error offset", "cpu.csv", badCSV, Config{}, "cpu.csv: record 2 (line 3, byte offset 305): 3 fields, table cpu has 21 columns"},
		{"multi-table csv", "s.csv", []byte("#tsload-csv v1\n#table t time:timestamptz,v:float8\n#data t\n2016-01-01T00:00:00Z,1\n"), Config{}, ""},
		{"pgcopy", "cpu.bin", pgFile(rowFor(cpu, "h")), Config{}, "cpu.bin: byte offset 0: UTF-8 byte-order mark before the pgcopy signature"},
		{"pgcopy with the format given", "cpu.bin", []byte("hello\n"), Config{Format: format.PGCopy}, "cpu.bin: byte offset 0: UTF-8 byte-order mark before the pgcopy signature"},
		{"tslcopy", "s.bin", cat(tslHeader(cpu), tslFrame(0, rowFor(cpu, "h")), []byte{0xff, 0xff}), Config{}, "s.bin: byte offset 0: UTF-8 byte-order mark before the pgcopy signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, withBOM := tc.data, append([]byte(utf8BOM), tc.data...)
			if tc.data == nil { // gzip: the mark is inside the compressed data
				plain, withBOM = gz(ilpLines(50)), gz(append([]byte(utf8BOM), ilpLines(50)...))
			}
			got, _, _, err := splitAll(tc.source, withBOM, tc.cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			want, _, _, werr := splitAll(tc.source, plain, tc.cfg)
			if err != nil || werr != nil {
				t.Fatalf("with the mark: %v; without: %v", err, werr)
			}
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%d batches, want %d", len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if !bytes.Equal(g.Data, w.Data) || g.Rows != w.Rows || g.Offset != w.Offset+3 || g.FirstLine != w.FirstLine {
					t.Fatalf("batch %d: %d rows at offset %d (line %d), want %d rows at %d+3 (line %d)\n%q\n%q", i, g.Rows, g.Offset, g.FirstLine, w.Rows, w.Offset, w.FirstLine, head(g.Data), head(w.Data))
				}
				if (g.Table == nil) != (w.Table == nil) || g.Table != nil && g.Table.Name != w.Table.Name || len(g.Tables) != len(w.Tables) {
					t.Fatalf("batch %d: tables %v, want %v", i, g.Tables, w.Tables)
				}
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 60)] }
