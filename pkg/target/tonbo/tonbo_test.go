package tonbo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

func TestParseCommit(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"", "per-batch", ""},
		{"per-row", "per-row", ""},
		{"per-batch", "per-batch", ""},
		{"write-batch", "write-batch", ""},
		{"one-transaction", "", "holds its rows in memory"},
		{"autocommit", "", "unknown"},
	} {
		got, err := ParseCommit(c.in)
		if c.err != "" {
			var se *load.SettingError
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &se) {
				t.Errorf("%q: %v, want a setting error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func ExampleParseCommit() {
	for _, s := range []string{"per-row", "per-batch", "write-batch"} {
		c, _ := ParseCommit(s)
		fmt.Println(c, c.mode())
	}
	// Output:
	// per-row 0
	// per-batch 1
	// write-batch 2
}

var cpu = &schema.Table{Name: "cpu", Columns: []schema.Column{
	{Name: "time", Type: schema.Timestamp},
	{Name: "host", Type: schema.Text, Tag: true},
	{Name: "region", Type: schema.Text, Tag: true},
	{Name: "usage", Type: schema.Float8},
	{Name: "n", Type: schema.Int8},
}}

// TestEncode checks the row buffer the bridge decodes (lib.rs,
// decode_rows) and the key: the series as length-prefixed tags, then the
// time in 16 hex digits.
func TestEncode(t *testing.T) {
	tb, err := newTable("x", cpu)
	if err != nil {
		t.Fatal(err)
	}
	if tb.spec != "s host\ns region\nf usage\ni n\n" || fmt.Sprint(tb.keyCols) != "[1 2]" {
		t.Fatalf("spec %q key %v", tb.spec, tb.keyCols)
	}
	var e encoder
	e.reset()
	cells := e.row(tb)
	cells[1] = cell{set: true, s: []byte("h1")}
	cells[3] = cell{set: true, f: 1.5}
	cells[4] = cell{set: true, i: -7}
	e.put(tb, cells, -1)
	g := e.groups[0]
	key := "2:h1-" + "7fffffffffffffff"
	var want []byte
	want = binary.LittleEndian.AppendUint32(want, uint32(len(key)))
	want = append(want, key...)
	want = binary.LittleEndian.AppendUint64(want, math.MaxUint64) // -1
	want = append(want, 1, 2, 0, 0, 0, 'h', '1', 0, 1)
	want = binary.LittleEndian.AppendUint64(want, math.Float64bits(1.5))
	want = append(want, 1)
	want = binary.LittleEndian.AppendUint64(want, uint64(math.MaxUint64-6))
	if g.rows != 1 || !bytes.Equal(g.buf, want) {
		t.Fatalf("row buffer\n%q\nwant\n%q", g.buf, want)
	}
}

// TestKeySeries: rows of one series differ in the key's last 16 bytes
// only; a tag value that contains another's spelling stays apart.
func TestKeySeries(t *testing.T) {
	tb, err := newTable("x", cpu)
	if err != nil {
		t.Fatal(err)
	}
	key := func(host, region string, ns int64) string {
		var e encoder
		e.reset()
		c := e.row(tb)
		c[1] = cell{set: host != "", s: []byte(host)}
		c[2] = cell{set: region != "", s: []byte(region)}
		e.put(tb, c, ns)
		return string(e.key)
	}
	a, b := key("h1", "eu", 1), key("h1", "eu", 2)
	if a == b || a[:len(a)-16] != b[:len(b)-16] {
		t.Errorf("one series at two times: %q %q", a, b)
	}
	for _, o := range []string{key("h1e", "u", 1), key("h1", "", 1), key("", "h1", 1), key("h", "1eu", 1)} {
		if o[:len(o)-16] == a[:len(a)-16] {
			t.Errorf("two series, one key prefix: %q %q", a, o)
		}
	}
	if x, y := key("h", "", -5), key("h", "", 5); x >= y {
		t.Errorf("keys do not sort by time: %q >= %q", x, y)
	}
}

func TestNewTableRefuses(t *testing.T) {
	for _, tb := range []*schema.Table{
		{Name: "empty"},
		{Name: "dup", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}, {Name: "a", Type: schema.Int8}, {Name: "a", Type: schema.Text}}},
		{Name: "own", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}, {Name: "_key", Type: schema.Text}}},
	} {
		if _, err := newTable("x", tb); err == nil {
			t.Errorf("table %q: no error", tb.Name)
		}
	}
}

// BenchmarkEncodeILP encodes a batch of 1,000 ILP lines of 10 tags and
// 10 doubles into the bridge's row buffer (no bridge call: the table is
// laid out beforehand).
func BenchmarkEncodeILP(b *testing.B) {
	cols := []schema.Column{{Name: "time", Type: schema.Timestamp}}
	var line strings.Builder
	line.WriteString("cpu")
	for i := 0; i < 10; i++ {
		cols = append(cols, schema.Column{Name: fmt.Sprintf("t%d", i), Type: schema.Text, Tag: true})
		fmt.Fprintf(&line, ",t%d=value_%d", i, i)
	}
	for i := 0; i < 10; i++ {
		cols = append(cols, schema.Column{Name: fmt.Sprintf("f%d", i), Type: schema.Float8})
		sep := ","
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(&line, "%sf%d=%d.25", sep, i, i*7)
	}
	var data []byte
	for i := 0; i < 1000; i++ {
		data = append(data, fmt.Sprintf("%s %d\n", line.String(), 1451606400000000000+int64(i)*1e9)...)
	}
	tg, err := New(Config{Path: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	tb, err := newTable("x", &schema.Table{Name: "cpu", Columns: cols})
	if err != nil {
		b.Fatal(err)
	}
	tb.h = &handle{} // open as far as the encoder can tell
	tg.tables["cpu"] = tb
	batch := &load.Batch{Format: format.ILP, Data: data, Rows: 1000, Source: "bench", FirstLine: 1}
	var e encoder
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.decode(context.Background(), tg, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFingerprint: the scan's aggregates land on the fields the query
// names, by kind; a field the table lacks has no values.
func TestFingerprint(t *testing.T) {
	tb, err := newTable("x", &schema.Table{Name: "m", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true},
		{Name: "f4", Type: schema.Float4}, {Name: "n", Type: schema.Int8}, {Name: "u", Type: schema.Int8},
		{Name: "b", Type: schema.Int8},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := &scanned{Rows: 3, MinTime: 10, MaxTime: 30, Series: 2,
		Counts: []int64{3, 3, 2, 1, 3}, IntHi: []int64{0, 0, -1, 0, 0}, IntLo: []uint64{12, 0, math.MaxUint64 - 4, 9, 2},
		Sums: []float64{0, 1.5, 0, 0, 0}, Abs: []float64{0, 2.5, 0, 0, 0},
		IMin: []int64{0, 0, -7, 9, 0}, IMax: []int64{0, 0, 2, 9, 1}, FMin: []float64{0, -0.5, 0, 0, 0}, FMax: []float64{0, 2, 0, 0, 0}}
	q := fingerprint.Query{Table: "m", Time: "time", Tags: []string{"host"}, Fields: []fingerprint.FieldQuery{
		{Name: "b", Kind: fingerprint.Bool}, {Name: "f4", Kind: fingerprint.Float}, {Name: "gone", Kind: fingerprint.Float},
		{Name: "n", Kind: fingerprint.Int}, {Name: "u", Kind: fingerprint.Uint}}}
	fp := tb.fingerprint(q, s)
	if fp.Rows != 3 || fp.Series != 2 || !fp.SeriesExact || fp.MinTime != 10 || fp.MaxTime != 30 || len(fp.Fields) != 5 {
		t.Fatalf("%+v", fp)
	}
	want := []fingerprint.Field{
		{Name: "b", Kind: fingerprint.Bool, Count: 3, True: 2},
		{Name: "f4", Kind: fingerprint.Float, Count: 3, Sum: 1.5, AbsSum: 2.5, Float4: true, Extremes: true, Min: -0.5, Max: 2},
		{Name: "gone", Kind: fingerprint.Float},
		{Name: "n", Kind: fingerprint.Int, Count: 2, IntSum: fingerprint.Int128FromInt64(-5),
			Extremes: true, IntMin: fingerprint.Int128FromInt64(-7), IntMax: fingerprint.Int128FromInt64(2)},
		{Name: "u", Kind: fingerprint.Uint, Count: 1, IntSum: fingerprint.Int128FromInt64(9),
			Extremes: true, IntMin: fingerprint.Int128FromInt64(9), IntMax: fingerprint.Int128FromInt64(9)},
	}
	for i, w := range want {
		if fp.Fields[i] != w {
			t.Errorf("field %d: %+v, want %+v", i, fp.Fields[i], w)
		}
	}
}
