package split

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/schema"
)

// tableDecl encodes a table declaration (as in the TSLCOPY header).
func tableDecl(t *schema.Table) []byte {
	return tslHeader(t)[len(tslcopyMagic)+2:]
}

// pgChunkHeader is a single-table COPY header whose extension area holds a
// tsload table chunk with decl, followed by extra extension bytes.
func pgChunkHeader(decl []byte, extra ...byte) []byte {
	ext := append([]byte(nil), pgChunkTag...)
	ext = binary.BigEndian.AppendUint32(ext, uint32(len(decl)))
	ext = append(append(ext, decl...), extra...)
	out := append(append([]byte(nil), pgcopyMagic...), 0, 0, 0, 0)
	out = binary.BigEndian.AppendUint32(out, uint32(len(ext)))
	return append(out, ext...)
}

func TestPGCopyTableChunk(t *testing.T) {
	cpu := mustTable(t, "cpu")
	weather := mustTable(t, "weather")
	hdr := pgChunkHeader(tableDecl(cpu))
	file := cat(hdr, rowFor(cpu, "a"), rowFor(cpu, "b", 12), []byte{0xff, 0xff})
	odd := &schema.Table{Name: "odd", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}, {Name: "k", Type: schema.Text, Tag: true}, {Name: "v", Type: schema.Int4}}}
	oddRow := pgTuple(make([]byte, 8), []byte("x"), []byte{0, 0, 0, 7})
	foreign := cat(pgcopyMagic, []byte{0, 0, 0, 0, 0, 0, 0, 5}, []byte("other"), rowFor(cpu, "a"), []byte{0xff, 0xff})
	badType := tableDecl(cpu)
	badType[len(badType)-2] = 99 // last column's type code
	tests := []struct {
		name, source string
		data         []byte
		cfg          Config
		table        string // the batches' table name
		known        bool   // the batches' table is the use case's
		err          string
	}{
		{name: "stdin: the table from the chunk", source: "stdin", data: file, table: "cpu", known: true},
		{name: "gzip stdin", source: "stdin", data: gz(file), table: "cpu", known: true},
		{name: "--table overrides the name", source: "stdin", data: file, cfg: Config{Table: "cpu_copy"}, table: "cpu_copy"},
		{name: "the chunk names it, not the file name", source: "/d/hosts.pgcopy", data: file, table: "cpu", known: true},
		{name: "an unusable file name leaves the chunk's", source: "/d/run-1.pgcopy", data: file, table: "cpu", known: true},
		{name: "a table no use case has", source: "stdin", data: cat(pgChunkHeader(tableDecl(odd)), oddRow, []byte{0xff, 0xff}), table: "odd"},
		{name: "bytes after the chunk are skipped", source: "stdin", data: cat(pgChunkHeader(tableDecl(cpu), 1, 2, 3), rowFor(cpu, "a"), []byte{0xff, 0xff}), table: "cpu", known: true},
		{name: "other extension data: --table as before", source: "stdin", data: foreign, cfg: Config{Table: "cpu"}, table: "cpu", known: true},
		{name: "other extension data without --table", source: "stdin", data: foreign,
			err: "stdin: cannot tell the table from the input's name: pass --table"},
		{name: "--table with another column count", source: "stdin", data: file, cfg: Config{Table: "weather"},
			err: fmt.Sprintf("stdin: the file declares table cpu with 21 columns, table weather has %d", len(weather.Columns))},
		{name: "tuples of another width", source: "stdin", data: cat(pgChunkHeader(tableDecl(odd)), rowFor(cpu, "a"), []byte{0xff, 0xff}),
			err: fmt.Sprintf("stdin: record 1 (byte offset %d): 21 fields, table odd has 3 columns", len(pgChunkHeader(tableDecl(odd))))},
		{name: "bad type code", source: "stdin", data: cat(pgChunkHeader(badType), []byte{0xff, 0xff}),
			err: "tsload table chunk: table cpu: invalid column \"usage_guest_nice\" of type code 99"},
		{name: "truncated declaration", source: "stdin", data: cat(pgChunkHeader(tableDecl(cpu)[:20]), []byte{0xff, 0xff}),
			err: "stdin: byte offset 36: tsload table chunk: truncated declaration"},
		{name: "declaration shorter than the chunk", source: "stdin", data: cat(pgChunkHeader(append(tableDecl(cpu), 0)), []byte{0xff, 0xff}),
			err: "tsload table chunk: 1 bytes after the table declaration"},
		{name: "chunk overruns the extension", source: "stdin",
			data: cat(pgcopyMagic, []byte{0, 0, 0, 0, 0, 0, 0, 20}, pgChunkTag, []byte{0, 0, 1, 0}, []byte("abc"), []byte{0xff, 0xff}),
			err:  "stdin: byte offset 32: tsload table chunk of 256 bytes overruns the 20-byte header extension"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, _, sp, err := splitAll(tc.source, tc.data, tc.cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v\nwant it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sp.Tables()) != 1 || sp.Tables()[0].Name != tc.table {
				t.Fatalf("tables %v, want %s", sp.Tables(), tc.table)
			}
			tb := sp.Tables()[0]
			if got := tb == cpu; got != tc.known {
				t.Errorf("table is the use case's: %v, want %v", got, tc.known)
			}
			rows := 0
			for _, b := range bs {
				rows += b.Rows
				if b.Table != tb || b.Tables[0].Name != tc.table {
					t.Fatalf("batch table %v %v", b.Table.Name, b.Tables)
				}
			}
			if rows == 0 {
				t.Fatal("no rows")
			}
		})
	}
}

// TestPGCopyEncoderOutput splits what pkg/format/pgcopy writes for a single
// table (the generator's single-table files) from stdin, with no name.
func TestPGCopyEncoderOutput(t *testing.T) {
	weather := mustTable(t, "weather")
	e, err := pgcopy.New([]*schema.Table{weather}, false)
	if err != nil {
		t.Fatal(err)
	}
	data := e.StreamHeader(nil)
	for i := 0; i < 7; i++ {
		row := &format.Row{Time: 1451606400000000000 + int64(i)*1e9, Tags: [][]byte{[]byte("7")}, TagInt: []int64{7},
			Float: []float64{1, 2, 3, 4, 5, 6, 7, 8}}
		if data, err = e.AppendRow(data, row); err != nil {
			t.Fatal(err)
		}
	}
	data = e.StreamTrailer(data)
	bs, _, sp, err := splitAll("stdin", data, Config{Format: format.PGCopy, BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sp.Tables()[0] != weather || len(bs) != 3 || bs[0].Rows != 3 || bs[2].Rows != 1 || bs[0].Metrics != 24 {
		t.Fatalf("tables %v batches %d", sp.Tables(), len(bs))
	}
	if want := len(e.StreamHeader(nil)); bs[0].Offset != int64(want) {
		t.Errorf("first tuple at offset %d, want %d (after the header)", bs[0].Offset, want)
	}
	if !bytes.HasPrefix(data[19:], pgChunkTag) {
		t.Errorf("no tsload table chunk after the COPY header: % x", data[:40])
	}
}
