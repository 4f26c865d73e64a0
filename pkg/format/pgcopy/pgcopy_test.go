package pgcopy

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

var tA = &schema.Table{Name: "a", Columns: []schema.Column{
	{Name: "time", Type: schema.Timestamp}, {Name: "h", Type: schema.Text, Tag: true},
	{Name: "id", Type: schema.Int4, Tag: true},
	{Name: "x", Type: schema.Float8}, {Name: "y", Type: schema.Float4}, {Name: "n", Type: schema.Int8}, {Name: "m", Type: schema.Int4}}}

func TestSingle(t *testing.T) {
	e, err := New([]*schema.Table{tA}, false)
	if err != nil {
		t.Fatal(err)
	}
	b := e.StreamHeader(nil)
	b, err = e.AppendRow(b, &format.Row{Time: 946684800000001000, Tags: [][]byte{[]byte("ab"), []byte("5")}, TagInt: []int64{0, 5},
		Float: []float64{1.5, 2.5, 0, 0}, Int: []int64{0, 0, -2, 0}, Null: 1 << 3})
	if err != nil {
		t.Fatal(err)
	}
	b = e.StreamTrailer(b)
	want := "5047434f50590aff0d0a00" + "00000000" +
		"0000003d" + // header extension: 61 bytes
		"74736c6f61642e7461626c6500" + "0000002c" + // "tsload.table\0", 44-byte declaration:
		"0001" + "61" + "0007" + // table "a", 7 columns
		"0004" + "74696d65" + "0100" + // time timestamptz
		"0001" + "68" + "0201" + // h text, tag
		"0002" + "6964" + "0601" + // id int4, tag
		"0001" + "78" + "0300" + "0001" + "79" + "0400" + "0001" + "6e" + "0500" + "0001" + "6d" + "0600" +
		"0007" +
		"00000008" + "0000000000000001" + // time: 1 µs after 2000-01-01
		"00000002" + "6162" +
		"00000004" + "00000005" +
		"00000008" + hex.EncodeToString(binary.BigEndian.AppendUint64(nil, math.Float64bits(1.5))) +
		"00000004" + hex.EncodeToString(binary.BigEndian.AppendUint32(nil, math.Float32bits(2.5))) +
		"00000008" + "fffffffffffffffe" +
		"ffffffff" +
		"ffff"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestMultiHeader(t *testing.T) {
	tb := &schema.Table{Name: "b", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}, {Name: "v", Type: schema.Int8}}}
	e, err := New([]*schema.Table{tb}, true)
	if err != nil {
		t.Fatal(err)
	}
	b := e.StreamHeader(nil)
	b = e.ChunkHeader(b, 0, 0x0102)
	b = e.StreamTrailer(b)
	want := "54534c434f50590aff0d0a" + "0001" +
		"0001" + "62" + "0002" + "0004" + "74696d65" + "01" + "00" + "0001" + "76" + "05" + "00" +
		"0000" + "00000102" +
		"ffff"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestMicros(t *testing.T) {
	tests := []struct{ ns, want int64 }{
		{946684800000000000, 0}, {946684800000001999, 1}, {0, -946684800000000}, {-1, -946684800000001},
	}
	for _, tt := range tests {
		if got := Micros(tt.ns); got != tt.want {
			t.Errorf("Micros(%d) = %d, want %d", tt.ns, got, tt.want)
		}
	}
}

func BenchmarkAppendRow(b *testing.B) {
	e, _ := New([]*schema.Table{tA}, false)
	r := &format.Row{Time: 1451606400000000000, Tags: [][]byte{[]byte("host_1"), []byte("7")}, TagInt: []int64{0, 7}, Float: []float64{37.21, 0.5, 0, 0}, Int: []int64{0, 0, 42, 1}}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = e.AppendRow(buf[:0], r)
	}
	b.SetBytes(int64(len(buf)))
}
