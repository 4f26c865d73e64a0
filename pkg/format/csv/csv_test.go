package csv

import (
	encsv "encoding/csv"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

var (
	tA = &schema.Table{Name: "a", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true},
		{Name: "id", Type: schema.Int4, Tag: true},
		{Name: "x", Type: schema.Float8}, {Name: "y", Type: schema.Float4}, {Name: "n", Type: schema.Int8}}}
	tB = &schema.Table{Name: "b", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "v", Type: schema.Int4}}}
)

func TestSingle(t *testing.T) {
	e, err := New([]*schema.Table{tA}, false)
	if err != nil {
		t.Fatal(err)
	}
	b := e.StreamHeader(nil)
	rows := []*format.Row{
		{Time: 1451606400000000000, Tags: [][]byte{[]byte("h,1"), []byte("7")}, TagInt: []int64{0, 7}, Float: []float64{2.5, 0.1, 0}, Int: []int64{0, 0, 42}},
		{Time: 1451606410500000000, Tags: [][]byte{nil, []byte("8")}, TagInt: []int64{0, 8}, Float: []float64{-1e21, 3.3, 0}, Int: []int64{0, 0, -1}, Null: 1 << 1},
		{Time: 1451606410000001999, Tags: [][]byte{[]byte(`say "hi"`), []byte("9")}, TagInt: []int64{0, 9}, Float: []float64{0, 0, 0}, Int: []int64{0, 0, 0}, Null: 1},
	}
	for _, r := range rows {
		if b, err = e.AppendRow(b, r); err != nil {
			t.Fatal(err)
		}
	}
	want := "time,host,id,x,y,n\n" +
		"2016-01-01T00:00:00Z,\"h,1\",7,2.5,0.1,42\n" +
		"2016-01-01T00:00:10.5Z,,8,-1e+21,,-1\n" +
		"2016-01-01T00:00:10.000001Z,\"say \"\"hi\"\"\",9,,0,0\n"
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	recs, err := encsv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(recs) != 4 || recs[3][1] != `say "hi"` {
		t.Fatalf("encoding/csv: %v %q", err, recs)
	}
	if _, err := New([]*schema.Table{tA, tB}, false); err == nil {
		t.Fatal("single-table CSV with two tables accepted")
	}
}

func TestMulti(t *testing.T) {
	e, err := New([]*schema.Table{tA, tB}, true)
	if err != nil {
		t.Fatal(err)
	}
	b := e.StreamHeader(nil)
	b = e.ChunkHeader(b, 1, 0)
	b, _ = e.AppendRow(b, &format.Row{Table: 1, Time: 0, Int: []int64{3}, Float: []float64{0}})
	b = e.StreamTrailer(b)
	want := "#tsload-csv v1\n" +
		"#table a time:timestamptz,host:text,id:int4,x:float8,y:float4,n:int8\n" +
		"#table b time:timestamptz,v:int4\n" +
		"#data b\n" +
		"1970-01-01T00:00:00Z,3\n"
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

func TestAppendTime(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, "1970-01-01T00:00:00Z"},
		{1451606400000000000, "2016-01-01T00:00:00Z"},
		{1451606400123000000, "2016-01-01T00:00:00.123Z"},
		{1451606400000000999, "2016-01-01T00:00:00Z"},
		{-1, "1969-12-31T23:59:59.999999Z"},
	}
	for _, tt := range tests {
		if got := string(AppendTime(nil, tt.ns)); got != tt.want {
			t.Errorf("AppendTime(%d) = %s, want %s", tt.ns, got, tt.want)
		}
	}
}

func TestAppendField(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"}, {"", `""`}, {"a,b", `"a,b"`}, {`a"b`, `"a""b"`}, {"a\nb", "\"a\nb\""}, {"a\rb", "\"a\rb\""},
	}
	for _, tt := range tests {
		if got := string(AppendField(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("AppendField(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func BenchmarkAppendRow(b *testing.B) {
	e, _ := New([]*schema.Table{tA}, false)
	r := &format.Row{Time: 1451606400000000000, Tags: [][]byte{[]byte("host_1"), []byte("7")}, TagInt: []int64{0, 7}, Float: []float64{37.21, 0.5, 0}, Int: []int64{0, 0, 42}}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Time += 10e9
		buf, _ = e.AppendRow(buf[:0], r)
	}
	b.SetBytes(int64(len(buf)))
}
