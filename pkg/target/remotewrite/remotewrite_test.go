package remotewrite

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protowire"
)

// decoded is a WriteRequest read back: per series (labels as a=b,c=d),
// its samples as value@ms.
func decode(t testing.TB, body []byte) map[string][]string {
	t.Helper()
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	fields := func(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64)) {
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				t.Fatalf("bad tag")
			}
			b = b[n:]
			switch typ {
			case protowire.BytesType:
				v, n := protowire.ConsumeBytes(b)
				if n < 0 {
					t.Fatal("bad bytes")
				}
				fn(num, typ, v, 0)
				b = b[n:]
			case protowire.VarintType:
				x, n := protowire.ConsumeVarint(b)
				fn(num, typ, nil, x)
				b = b[n:]
			case protowire.Fixed64Type:
				x, n := protowire.ConsumeFixed64(b)
				fn(num, typ, nil, x)
				b = b[n:]
			default:
				t.Fatalf("type %v", typ)
			}
		}
	}
	fields(raw, func(num protowire.Number, _ protowire.Type, ts []byte, _ uint64) {
		if num != 1 {
			t.Fatalf("WriteRequest field %d", num)
		}
		var labels, samples []string
		fields(ts, func(num protowire.Number, _ protowire.Type, v []byte, _ uint64) {
			switch num {
			case 1:
				var name, value string
				fields(v, func(num protowire.Number, _ protowire.Type, v []byte, _ uint64) {
					if num == 1 {
						name = string(v)
					} else {
						value = string(v)
					}
				})
				labels = append(labels, name+"="+value)
			case 2:
				var val float64
				var ms int64
				fields(v, func(num protowire.Number, _ protowire.Type, _ []byte, x uint64) {
					if num == 1 {
						val = math.Float64frombits(x)
					} else {
						ms = int64(x)
					}
				})
				samples = append(samples, fmt.Sprintf("%v@%d", val, ms))
			}
		})
		if !sort.SliceIsSorted(labels, func(i, j int) bool {
			a, _, _ := strings.Cut(labels[i], "=")
			b, _, _ := strings.Cut(labels[j], "=")
			return a < b
		}) {
			t.Errorf("labels not sorted: %v", labels)
		}
		k := strings.Join(labels, ",")
		out[k] = append(out[k], samples...)
	})
	return out
}

func TestEncode(t *testing.T) {
	e, err := New(Rules{Unit: time.Nanosecond}, Label{"db", "d"})
	if err != nil {
		t.Fatal(err)
	}
	in := "# c\ncpu,host=a,Zone=z usage=1.5,n=2i,up=t 1451606400000000000\n\ncpu,Zone=z,host=a usage=2,n=3i,up=f 1451606401000000000\nmem,host=b f=9007199254740992u,g=-1152921504606846976i 1451606400000000000\n"
	body, err := e.Encode(nil, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := decode(t, body)
	want := map[string][]string{
		"Zone=z,__name__=cpu_usage,db=d,host=a": {"1.5@1451606400000", "2@1451606401000"},
		"Zone=z,__name__=cpu_n,db=d,host=a":     {"2@1451606400000", "3@1451606401000"},
		"Zone=z,__name__=cpu_up,db=d,host=a":    {"1@1451606400000", "0@1451606401000"},
		"__name__=mem_f,db=d,host=b":            {"9.007199254740992e+15@1451606400000"},
		"__name__=mem_g,db=d,host=b":            {"-1.152921504606847e+18@1451606400000"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if e.Samples != 8 || e.Shape["cpu"] != 3 || e.Shape["mem"] != 2 {
		t.Errorf("samples %d shape %v", e.Samples, e.Shape)
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, c := range []struct {
		in   string
		r    Rules
		line int64
		want string
	}{
		{"cpu v=1 1000000\ncpu s=\"x\" 1000000\n", Rules{}, 2, "a string"},
		{"cpu v=9007199254740993i 1000000\n", Rules{}, 1, "no exact float64"},
		{"cpu v=-9007199254740993i 1000000\n", Rules{}, 1, "no exact float64"},
		{"cpu v=9007199254740993u 1000000\n", Rules{}, 1, "no exact float64"},
		{"cpu v=9223372036854775807i 1000000\n", Rules{}, 1, "no exact float64"},
		{"cpu v=18446744073709551615u 1000000\n", Rules{}, 1, "no exact float64"},
		{"# x\n\ncpu v=1\n", Rules{}, 3, "no timestamp"},
		{"cpu v=1 1500\n", Rules{}, 1, "finer than a millisecond"},
		{"cpu v=1 1500\n", Rules{Unit: time.Microsecond}, 1, "finer than a millisecond"},
		{"cpu v=1 0\n", Rules{NoZeroTime: true}, 1, "timestamp 0"},
		{"cpu v=1 5000\n", Rules{Unit: time.Second, Min: 1, Max: 10, Why: "w"}, 1, "outside"},
		{"cpu,__x=1 v=1 1000000\n", Rules{}, 1, "not a Prometheus label name"},
		{"cpu,db=x v=1 1000000\n", Rules{}, 1, "the label the loader sets"},
		{"c-pu v=1 1000000\n", Rules{StrictNames: true}, 1, "not a Prometheus metric name"},
		{"cpu,h-x=1 v=1 1000000\n", Rules{StrictNames: true}, 1, "not a Prometheus label name"},
		{"cpu v=1 1000000\ncpu v= 1000000\n", Rules{}, 2, ""},
	} {
		e, err := New(c.r, Label{"db", "d"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Encode(nil, []byte(c.in))
		var le *LineError
		if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(le.Reason, c.want) {
			t.Errorf("%q: %v, want line %d saying %q", c.in, err, c.line, c.want)
		}
	}
	if _, err := New(Rules{}, Label{"a-b", "x"}); err == nil {
		t.Error("a bad extra label name passed")
	}
}

// FuzzEncode: any input is encoded or refused with a line error; what is
// encoded decodes, with one sample per accepted field.
func FuzzEncode(f *testing.F) {
	f.Add([]byte("cpu,host=a usage=1,idle=2i,up=t 1451606400000000000\n"))
	f.Add([]byte("a\\ b,c=d\\,e f\\=g=-1.5E+3 -1000000\r\n# c\n"))
	f.Add([]byte(`m s="x" 1` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := New(Rules{}, Label{"db", "d"})
		if err != nil {
			t.Fatal(err)
		}
		body, err := e.Encode(nil, data)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("%q: %v", data, err)
			}
			return
		}
		n := 0
		for _, s := range decode(t, body) {
			n += len(s)
		}
		if n != e.Samples {
			t.Fatalf("%q: %d samples decoded, %d encoded", data, n, e.Samples)
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&sb, "cpu,hostname=host_%d,region=eu-central-1,datacenter=eu-central-1a usage_user=%d.5,usage_system=12.25,usage_idle=3i %d\n",
			i%100, i, 1451606400000000000+int64(i/100)*10e9)
	}
	data := []byte(sb.String())
	e, err := New(Rules{}, Label{"db", "benchmark"})
	if err != nil {
		b.Fatal(err)
	}
	var body []byte
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if body, err = e.Encode(body, data); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleEncoder_Encode() {
	e, _ := New(Rules{Unit: time.Second}, Label{Name: "db", Value: "benchmark"})
	body, err := e.Encode(nil, []byte("cpu,host=a usage_user=1.5,usage_idle=98.5 1451606400\n"))
	fmt.Println(len(body) > 0, err, e.Samples, Headers["Content-Encoding"], ContentType)
	// Output: true <nil> 2 snappy application/x-protobuf
}
