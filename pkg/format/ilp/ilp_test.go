package ilp

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

var testTable = &schema.Table{Name: "m", Columns: []schema.Column{
	{Name: "time", Type: schema.Timestamp},
	{Name: "zone", Type: schema.Text, Tag: true},
	{Name: "host", Type: schema.Text, Tag: true},
	{Name: "id", Type: schema.Int4, Tag: true},
	{Name: "f", Type: schema.Float8},
	{Name: "n", Type: schema.Int8},
	{Name: "g", Type: schema.Float4},
}}

func row(zone, host string, f float64, n int64, null uint64) *format.Row {
	r := &format.Row{Time: 1451606400000000000, Tags: [][]byte{[]byte(zone), []byte(host), []byte("7")},
		TagInt: []int64{0, 0, 7}, Float: []float64{f, 0, 1.5}, Int: []int64{0, n, 0}, Null: null}
	if zone == "<nil>" {
		r.Tags[0] = nil
	}
	return r
}

func TestAppendRow(t *testing.T) {
	tests := []struct {
		name string
		row  *format.Row
		want string
	}{
		{"plain", row("eu", "host_1", 2.26, 5, 0), "m,host=host_1,id=7,zone=eu f=2.26,n=5i,g=1.5 1451606400000000000\n"},
		{"escapes", row("a b,c=d", "h", 0.1, -3, 0), "m,host=h,id=7,zone=a\\ b\\,c\\=d f=0.1,n=-3i,g=1.5 1451606400000000000\n"},
		{"null tag", row("<nil>", "h", 1, 1, 0), "m,host=h,id=7 f=1,n=1i,g=1.5 1451606400000000000\n"},
		{"null field", row("z", "h", 1, 1, 1<<1), "m,host=h,id=7,zone=z f=1,g=1.5 1451606400000000000\n"},
		{"first field null", row("z", "h", 1, 1, 1), "m,host=h,id=7,zone=z n=1i,g=1.5 1451606400000000000\n"},
		{"big float", row("z", "h", 1e21, 1, 0), "m,host=h,id=7,zone=z f=1e+21,n=1i,g=1.5 1451606400000000000\n"},
		{"unicode tag", row("zürich", "h", 1, 1, 0), "m,host=h,id=7,zone=zürich f=1,n=1i,g=1.5 1451606400000000000\n"},
		{"long float", row("z", "h", math.Nextafter(0.3, 1), 1, 0), "m,host=h,id=7,zone=z f=0.30000000000000004,n=1i,g=1.5 1451606400000000000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, err := New([]*schema.Table{testTable})
			if err != nil {
				t.Fatal(err)
			}
			strict, _ := New([]*schema.Table{testTable})
			strict.Strict = true
			got, err := fast.AppendRow([]byte("prev\n"), tt.row)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prev\n"+tt.want {
				t.Errorf("fast   = %q\nwant     %q", got, "prev\n"+tt.want)
			}
			ref, err := strict.AppendRow([]byte("prev\n"), tt.row)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, ref) {
				t.Errorf("fast %q != Encoder %q", got, ref)
			}
			// with a series-key cache: the first row fills it, the second uses it
			var key []byte
			tt.row.Key = &key
			for i := 0; i < 2; i++ {
				withKey, err := fast.AppendRow([]byte("prev\n"), tt.row)
				if err != nil || !bytes.Equal(withKey, ref) {
					t.Errorf("with key (pass %d): %q, %v; want %q", i, withKey, err, ref)
				}
			}
			tt.row.Key = nil
			dec := lineprotocol.NewDecoderWithBytes(got[5:])
			for dec.Next() {
				if _, err := dec.Measurement(); err != nil {
					t.Fatal(err)
				}
				for {
					k, _, err := dec.NextTag()
					if err != nil {
						t.Fatal(err)
					}
					if k == nil {
						break
					}
				}
				for {
					k, _, err := dec.NextField()
					if err != nil {
						t.Fatal(err)
					}
					if k == nil {
						break
					}
				}
				ts, err := dec.Time(lineprotocol.Nanosecond, time.Time{})
				if err != nil || ts.UnixNano() != tt.row.Time {
					t.Fatalf("time %v %v", ts, err)
				}
			}
		})
	}
}

func TestAppendRowErrors(t *testing.T) {
	e, _ := New([]*schema.Table{testTable})
	tests := []struct {
		name string
		row  *format.Row
	}{
		{"NaN", row("z", "h", math.NaN(), 1, 0)},
		{"Inf", row("z", "h", math.Inf(1), 1, 0)},
		{"all null", row("z", "h", 1, 1, 7)},
		{"control char in tag", row("a\x01", "h", 1, 1, 0)},
		{"empty tag", row("", "h", 1, 1, 0)},
		{"trailing backslash", row("a\\", "h", 1, 1, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.AppendRow([]byte("x"), tt.row)
			if err == nil {
				t.Fatalf("no error, wrote %q", got)
			}
			if string(got) != "x" {
				t.Errorf("partial line left: %q", got)
			}
		})
	}
}

// FuzzFastEqualsEncoder checks that the fast path writes what the Encoder
// writes, or fails where the Encoder fails.
func FuzzFastEqualsEncoder(f *testing.F) {
	f.Add("eu", "host_1", 2.26, int64(5))
	f.Add("a b", "x\\y", 1e-5, int64(-1))
	f.Fuzz(func(t *testing.T, zone, host string, v float64, n int64) {
		fastEqualsEncoder(t, testTable, row(zone, host, v, n, 0))
	})
}

// fastEqualsEncoder fails unless the fast path writes r (of table tb) as
// the line-protocol Encoder does, or both refuse it.
func fastEqualsEncoder(t *testing.T, tb *schema.Table, r *format.Row) {
	t.Helper()
	fast, _ := New([]*schema.Table{tb})
	strict, _ := New([]*schema.Table{tb})
	strict.Strict = true
	got, err1 := fast.AppendRow(nil, r)
	want, err2 := strict.AppendRow(nil, r)
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("fast err %v, Encoder err %v", err1, err2)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("fast %q != Encoder %q", got, want)
	}
}

func BenchmarkAppendRow(b *testing.B) {
	e, _ := New([]*schema.Table{testTable})
	r := row("eu-west-1", "host_1234", 37.21, 12345, 0)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = e.AppendRow(buf[:0], r)
	}
	b.SetBytes(int64(len(buf)))
}

// floatTable takes appendFloatFields (no NULLs, every field a float).
var floatTable = &schema.Table{Name: "cpu", Columns: []schema.Column{
	{Name: "time", Type: schema.Timestamp},
	{Name: "host", Type: schema.Text, Tag: true},
	{Name: "usage_user", Type: schema.Float8},
	{Name: "a", Type: schema.Float8},
	{Name: "usage guest,nice=x", Type: schema.Float4}, // escaped key
}}

func floatRow(a, b, c float64) *format.Row {
	return &format.Row{Time: 1451606400000000000, Tags: [][]byte{[]byte("host_1")}, Float: []float64{a, b, c}, Int: make([]int64, 3)}
}

func TestAppendFloatRows(t *testing.T) {
	e, err := New([]*schema.Table{floatTable})
	if err != nil {
		t.Fatal(err)
	}
	if !e.tables[0].floatRows {
		t.Fatal("float table does not take the float-row path")
	}
	tests := []struct {
		row  *format.Row
		want string
	}{
		{floatRow(2.26, 0, 100), "cpu,host=host_1 usage_user=2.26,a=0,usage\\ guest\\,nice\\=x=100 1451606400000000000\n"},
		{floatRow(-0.5, 99.99, 12345.67), "cpu,host=host_1 usage_user=-0.5,a=99.99,usage\\ guest\\,nice\\=x=12345.67 1451606400000000000\n"},
		{floatRow(math.Copysign(0, -1), 1e21, 0.30000000000000004), "cpu,host=host_1 usage_user=-0,a=1e+21,usage\\ guest\\,nice\\=x=0.30000000000000004 1451606400000000000\n"},
		{floatRow(-1.2345678901234567e-300, 999999.99, 1e-5), "cpu,host=host_1 usage_user=-1.2345678901234568e-300,a=999999.99,usage\\ guest\\,nice\\=x=1e-05 1451606400000000000\n"},
	}
	for _, tt := range tests {
		// a nil and a tight buffer exercise the room-making
		for _, dst := range [][]byte{nil, make([]byte, 3, 4)} {
			got, err := e.AppendRow(dst, tt.row)
			if err != nil {
				t.Fatal(err)
			}
			if string(got[len(dst):]) != tt.want {
				t.Errorf("got  %q\nwant %q", got[len(dst):], tt.want)
			}
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(-1)} {
		if got, err := e.AppendRow([]byte("x"), floatRow(1, v, 2)); err == nil || string(got) != "x" {
			t.Errorf("%v: err %v, wrote %q", v, err, got)
		}
	}
}

// FuzzFloatRowsEqualEncoder checks appendFloatFields against the Encoder.
func FuzzFloatRowsEqualEncoder(f *testing.F) {
	f.Add(2.26, 0.0, 100.0, uint64(0))
	f.Add(-1e-5, 1e21, math.Nextafter(0.3, 1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b, c float64, null uint64) {
		r := floatRow(a, b, c)
		r.Null = null & 7
		fastEqualsEncoder(t, floatTable, r)
	})
}

func BenchmarkAppendFloatRow(b *testing.B) {
	e, _ := New([]*schema.Table{floatTable})
	r := floatRow(37.21, 0.5, 99)
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = e.AppendRow(buf[:0], r)
	}
	b.SetBytes(int64(len(buf)))
}
