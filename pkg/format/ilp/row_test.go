package ilp

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
)

func testLayout() RowLayout {
	return RowLayout{
		Measurement: "my meter",
		Tags:        []RowTag{{Col: 2, Key: "zone"}, {Col: 1, Key: "device"}},
		Fields:      []RowField{{Col: 3, Key: "kwh", Kind: FloatValue}, {Col: 4, Key: "n", Kind: IntValue}, {Col: 5, Key: "note", Kind: StringValue}},
	}
}

func vals(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, v := range s {
		if v != "<nil>" {
			out[i] = []byte(v)
		}
	}
	return out
}

func TestRowEncoder(t *testing.T) {
	e, err := NewRowEncoder(testLayout())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		row  [][]byte
		want string // the line, or the error
	}{
		{vals("t", "d1", "z a", "1.50", "7", `say "hi"`), `my\ meter,device=d1,zone=z\ a kwh=1.50,n=7i,note="say \"hi\"" 42` + "\n"},
		{vals("t", "<nil>", "", "<nil>", "-3", "<nil>"), "my\\ meter n=-3i 42\n"},
		{vals("t", "a,b=c", "z", "1e3", "<nil>", `back\slash`), `my\ meter,device=a\,b\=c,zone=z kwh=1000,note="back\\slash" 42` + "\n"},
		{vals("t", "d", "z", "abc", "1", ""), `column kwh: "abc" is not a finite number`},
		{vals("t", "d", "z", "NaN", "1", ""), `column kwh: "NaN" is not a finite number`},
		{vals("t", "d", "z", "1", "1.5", ""), `column n: "1.5" is not an integer`},
		{vals("t", "d\\x", "z", "1", "1", ""), `column device: "d\\x" holds a backslash`},
		{vals("t", "d", "z", "1", "1", "two\nlines"), `column note: "two\nlines" holds a line end`},
		{vals("t", "d", "z", "<nil>", "<nil>", "<nil>"), "every field is NULL"},
	} {
		got, err := e.AppendRow([]byte("keep:"), c.row, 42)
		switch {
		case err != nil && !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: err %v, want %q", c.row, err, c.want)
		case err != nil && string(got) != "keep:":
			t.Errorf("%q: a refused row left %q", c.row, got)
		case err == nil && string(got) != "keep:"+c.want:
			t.Errorf("%q:\n got %q\nwant %q", c.row, got, "keep:"+c.want)
		}
	}
	for _, l := range []RowLayout{{Measurement: "m"}, {Fields: []RowField{{Key: "f", Kind: FloatValue}}}, {Measurement: "m", Fields: []RowField{{Key: "", Kind: FloatValue}}}} {
		if _, err := NewRowEncoder(l); err == nil {
			t.Errorf("%+v: no error", l)
		}
	}
}

// FuzzRowEncoderAgainstLineProtocol: a line the RowEncoder writes is one
// line that line-protocol's Decoder reads back to the row's values (and
// that Scan accepts); a row it refuses has a value the field's kind
// cannot be.
func FuzzRowEncoderAgainstLineProtocol(f *testing.F) {
	f.Add("m", "d1", "z", "1.5", "7", "note", int64(1))
	f.Add("a b,c", "x=y", "", "-0", "-9223372036854775808", `q"\`, int64(-5))
	f.Add("m", "", "", "", "", "", int64(0))
	f.Fuzz(func(t *testing.T, m, dev, zone, kwh, n, note string, ts int64) {
		e, err := NewRowEncoder(RowLayout{Measurement: m,
			Tags:   []RowTag{{Col: 0, Key: "device"}, {Col: 1, Key: "zone"}},
			Fields: []RowField{{Col: 2, Key: "kwh", Kind: FloatValue}, {Col: 3, Key: "n", Kind: IntValue}, {Col: 4, Key: "note", Kind: StringValue}}})
		if err != nil {
			return
		}
		row := [][]byte{[]byte(dev), []byte(zone), []byte(kwh), []byte(n), []byte(note)}
		line, err := e.AppendRow(nil, row, ts)
		if err != nil {
			return
		}
		if r := Scan(line[:len(line)-1]); r.Reason != "" {
			t.Fatalf("%q: Scan refuses it: %s", line, r.Reason)
		}
		dec := lineprotocol.NewDecoderWithBytes(line)
		if !dec.Next() {
			t.Fatalf("%q: no line", line)
		}
		gotM, err := dec.Measurement()
		if err != nil || string(gotM) != m {
			t.Fatalf("%q: measurement %q, %v; want %q", line, gotM, err, m)
		}
		tags := map[string]string{}
		for {
			k, v, err := dec.NextTag()
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if k == nil {
				break
			}
			tags[string(k)] = string(v)
		}
		for k, v := range map[string]string{"device": dev, "zone": zone} {
			if got, ok := tags[k]; v != "" && got != v || v == "" && ok {
				t.Fatalf("%q: tag %s = %q, want %q", line, k, got, v)
			}
		}
		fields := map[string]lineprotocol.Value{}
		for {
			k, v, err := dec.NextField()
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if k == nil {
				break
			}
			fields[string(k)] = v
		}
		if v, ok := fields["kwh"]; kwh != "" {
			want, _ := strconv.ParseFloat(kwh, 64)
			if !ok || v.Kind() != lineprotocol.Float || v.FloatV() != want && !(math.IsNaN(want)) {
				t.Fatalf("%q: kwh %v, want %v", line, v, want)
			}
		}
		if v, ok := fields["n"]; n != "" {
			want, _ := strconv.ParseInt(n, 10, 64)
			if !ok || v.Kind() != lineprotocol.Int || v.IntV() != want {
				t.Fatalf("%q: n %v, want %d", line, v, want)
			}
		}
		if v, ok := fields["note"]; !ok || v.StringV() != note {
			t.Fatalf("%q: note %v, want %q", line, v, note)
		}
		gotTS, err := dec.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil || gotTS.UnixNano() != ts {
			t.Fatalf("%q: time %v, %v; want %d", line, gotTS, err, ts)
		}
		if dec.Next() {
			t.Fatalf("%q: more than one line", line)
		}
	})
}

// BenchmarkRowEncoder writes a cpu-like row (10 tags, 10 float fields) as
// a line: the per-row cost of CSV loaded as line protocol.
func BenchmarkRowEncoder(b *testing.B) {
	l := RowLayout{Measurement: "cpu"}
	row := make([][]byte, 21)
	for i := 1; i <= 10; i++ {
		l.Tags = append(l.Tags, RowTag{Col: i, Key: "tag" + strconv.Itoa(i)})
		row[i] = []byte("value-" + strconv.Itoa(i))
		l.Fields = append(l.Fields, RowField{Col: 10 + i, Key: "usage_" + strconv.Itoa(i), Kind: FloatValue})
		row[10+i] = []byte(strconv.Itoa(i*7) + ".25")
	}
	e, err := NewRowEncoder(l)
	if err != nil {
		b.Fatal(err)
	}
	line, _ := e.AppendRow(nil, row, 1451606400000000000)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		if buf, err = e.AppendRow(buf[:0], row, 1451606400000000000); err != nil {
			b.Fatal(err)
		}
	}
}
