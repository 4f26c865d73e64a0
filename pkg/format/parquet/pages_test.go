package parquet

import (
	"bytes"
	"os"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// encodeHeader is a page header as the library writes it.
func encodeHeader(t testing.TB, h *pqformat.PageHeader) []byte {
	t.Helper()
	b, err := thrift.Marshal(new(thrift.CompactProtocol), h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dataPage(values, uncompressed, compressed int32, st pqformat.Statistics) *pqformat.PageHeader {
	return &pqformat.PageHeader{Type: pqformat.DataPage, UncompressedPageSize: uncompressed, CompressedPageSize: compressed,
		DataPageHeader: thrift.New(pqformat.DataPageHeader{NumValues: values, Encoding: pqformat.Plain, Statistics: st})}
}

// TestCheckPagesRealFiles: every column chunk of pyarrow's sample and of
// generate_data's file is walked page by page to its declared value count.
func TestCheckPagesRealFiles(t *testing.T) {
	for _, name := range []string{"testdata/sample.parquet", writeGenerated(t)} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		chunks := 0
		for i, rg := range f.Metadata().RowGroups {
			for _, cc := range rg.Columns {
				m := cc.MetaData
				start := m.DataPageOffset
				if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
					start = m.DictionaryPageOffset
				}
				c := chunk{rowGroup: i, column: strings.Join(m.PathInSchema, "."), start: start, end: start + m.TotalCompressedSize, total: m.TotalUncompressedSize, values: m.NumValues}
				pages, err := checkPages(bytes.NewReader(data), c)
				if err != nil || pages < 1 {
					t.Fatalf("%s: %d pages, %v", name, pages, err)
				}
				chunks++
			}
		}
		if chunks == 0 {
			t.Fatalf("%s: no column chunks", name)
		}
	}
}

// writeGenerated writes a file of 3 row groups with this package's Writer
// (the writer of generate_data --format parquet) and returns its path.
func writeGenerated(t *testing.T) string {
	t.Helper()
	tb := &schema.Table{Name: "m", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp},
		{Name: "host", Type: schema.Text, Tag: true}, {Name: "usage", Type: schema.Float8}}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, tb, 400)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 1000; i++ {
		if err := w.WriteRow(&format.Row{Time: 1e18 + i, Tags: [][]byte{[]byte("h" + itoa(i%7))}, Float: []float64{float64(i) / 3}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/m.parquet"
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckPagesDamaged: a header that declares more than its chunk holds
// is refused naming the row group, the column, the offset and what it
// declared; a chunk padded after its last data page is not.
func TestCheckPagesDamaged(t *testing.T) {
	dict := encodeHeader(t, &pqformat.PageHeader{Type: pqformat.DictionaryPage, UncompressedPageSize: 16, CompressedPageSize: 16,
		DictionaryPageHeader: thrift.New(pqformat.DictionaryPageHeader{NumValues: 2, Encoding: pqformat.Plain})})
	good := append(append(dict, make([]byte, 16)...), encodeHeader(t, dataPage(10, 40, 40, pqformat.Statistics{}))...)
	good = append(good, make([]byte, 40)...)
	at := func(b []byte, values int64) chunk {
		return chunk{rowGroup: 3, column: "usage", start: 4, end: 4 + int64(len(b)), total: 1000, values: values}
	}
	file := func(b []byte) *bytes.Reader { return bytes.NewReader(append([]byte("PAR1"), b...)) }

	if pages, err := checkPages(file(good), at(good, 10)); err != nil || pages != 2 {
		t.Fatalf("good chunk: %d pages, %v", pages, err)
	}
	padded := append(good[:len(good):len(good)], 0, 0, 0)
	if pages, err := checkPages(file(padded), at(padded, 10)); err != nil || pages != 2 {
		t.Fatalf("padded chunk: %d pages, %v", pages, err)
	}
	big := encodeHeader(t, dataPage(10, 40, 40, pqformat.Statistics{MaxValue: []byte("x")}))
	// Make the statistic's length declare 98 MiB: find the one-byte length
	// 1 in front of "x" and replace it with a long varint.
	i := bytes.LastIndex(big, []byte{1, 'x'})
	huge := append(append(big[:i:i], 0x80, 0x80, 0x80, 0x31), big[i+1:]...)
	for _, c := range []struct {
		name  string
		chunk []byte
		want  string
	}{
		{"statistic longer than the chunk", huge, "a field of 102760448 bytes runs past its column chunk"},
		{"page beyond the chunk", encodeHeader(t, dataPage(10, 40, 1<<30, pqformat.Statistics{})), "declares 1073741824 bytes, beyond its column chunk's end"},
		{"uncompressed more than the chunk", append(encodeHeader(t, dataPage(10, 1<<20, 4, pqformat.Statistics{})), 1, 2, 3, 4), "declares 1048576 bytes uncompressed, more than its column chunk's 1000"},
		{"more values than the chunk", encodeHeader(t, dataPage(1<<30, 40, 0, pqformat.Statistics{})), "declares 1073741824 values, more than its column chunk's 10"},
		{"negative size", encodeHeader(t, dataPage(10, 40, -5, pqformat.Statistics{})), "declares negative sizes"},
		{"too few values", good, "with 10 of its 11 values"},
		{"cut header", good[:5], "page header at byte offset 4: damaged Thrift data: it runs past its column chunk"},
		{"deep nesting", bytes.Repeat([]byte{0x1c}, 100), "nested more than 32 deep"},
	} {
		values := int64(10)
		if c.name == "too few values" {
			values = 11
		}
		_, err := checkPages(file(c.chunk), at(c.chunk, values))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "row group 3, column usage") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// FuzzPageHeader: where the walker reads a page header, the library's own
// Thrift decoder reads the same sizes and value count from it (the
// reference is only asked once the walker has found every declared
// length inside the input, so it cannot be made to allocate more).
func FuzzPageHeader(f *testing.F) {
	f.Add(encodeHeader(f, dataPage(10, 40, 40, pqformat.Statistics{MaxValue: []byte("max"), NullCount: 2})))
	f.Add(encodeHeader(f, &pqformat.PageHeader{Type: pqformat.DataPageV2, UncompressedPageSize: 9, CompressedPageSize: 7,
		DataPageHeaderV2: thrift.New(pqformat.DataPageHeaderV2{NumValues: 5, NumNulls: 1, NumRows: 5})}))
	f.Add(encodeHeader(f, &pqformat.PageHeader{Type: pqformat.DictionaryPage, UncompressedPageSize: 3, CompressedPageSize: 3,
		DictionaryPageHeader: thrift.New(pqformat.DictionaryPageHeader{NumValues: 3})}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &thriftReader{r: bytes.NewReader(b), end: int64(len(b))}
		h, err := r.pageHeader()
		if err != nil {
			return
		}
		var ref pqformat.PageHeader
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[:r.off], &ref); err != nil {
			return // the walker is more lenient about types it skips
		}
		var values int64
		if d, ok := ref.DataPageHeader.Get(); ok {
			values = int64(d.NumValues)
		} else if d, ok := ref.DataPageHeaderV2.Get(); ok {
			values = int64(d.NumValues)
		}
		if h.compressed != ref.CompressedPageSize || h.uncompressed != ref.UncompressedPageSize || (values >= 0 && h.values != values) {
			t.Fatalf("walker %+v, library compressed %d uncompressed %d values %d", h, ref.CompressedPageSize, ref.UncompressedPageSize, values)
		}
	})
}

// TestCheckFooter: a footer whose list of row groups declares more
// elements than it has bytes is refused before the library allocates
// them; the real files' footers pass.
func TestCheckFooter(t *testing.T) {
	for _, name := range []string{"testdata/sample.parquet", "testdata/unsupported.parquet", writeGenerated(t)} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkFooter(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// FileMetaData field 4 (row_groups): a list of 2^31 structs.
	footer := []byte{0x49, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 0x00}
	file := append(append([]byte(Magic), footer...), byte(len(footer)), 0, 0, 0)
	file = append(file, Magic...)
	_, err := Open(bytes.NewReader(file), int64(len(file)), "bad.parquet", Options{Table: "x"})
	if err == nil || !strings.Contains(err.Error(), "bad.parquet: damaged Parquet footer (byte offsets 4 to 13): damaged Thrift data: a list of 2147483648 elements runs past the footer") {
		t.Fatalf("%v", err)
	}
	long := append(append([]byte(Magic), footer...), 0xff, 0xff, 0, 0)
	long = append(long, Magic...)
	if _, err := Open(bytes.NewReader(long), int64(len(long)), "long.parquet", Options{Table: "x"}); err == nil || !strings.Contains(err.Error(), "its footer declares 65535 bytes, more than the 9") {
		t.Fatalf("%v", err)
	}
}
