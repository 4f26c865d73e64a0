package records_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/format/records"
	"github.com/tsload/tsload/pkg/schema"
)

var cpu = &schema.Table{Name: "cpu", Columns: []schema.Column{
	{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true}, {Name: "usage", Type: schema.Float8},
}}

func ExampleReader() {
	var r records.Reader
	data := []byte("2016-01-01T00:00:00Z,a,1.5\n2016-01-01T00:00:10Z,\"b\",\n2016-01-01T00:00:20Z,c,x\n")
	err := r.Read(data, format.CSV, cpu, "in.csv", 1, 40, func(fields [][]byte, where func(error) error) error {
		fmt.Printf("%s %s %q\n", fields[0], fields[1], fields[2])
		if string(fields[2]) == "x" {
			return where(errors.New(`column "usage": "x" is not a number`))
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// 2016-01-01T00:00:00Z a "1.5"
	// 2016-01-01T00:00:10Z b ""
	// 2016-01-01T00:00:20Z c "x"
	// in.csv: record 3 (byte offset 93): column "usage": "x" is not a number
}

func TestRead(t *testing.T) {
	tuple := func(fields ...string) []byte {
		var bs [][]byte
		for _, f := range fields {
			if f == "NULL" {
				bs = append(bs, nil)
				continue
			}
			bs = append(bs, []byte(f))
		}
		return pgcopy.AppendTuple(nil, bs...)
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	trailer := []byte{0xff, 0xff}
	for _, c := range []struct {
		name    string
		kind    format.Format
		data    []byte
		failAt  int // the record (from 1) whose callback fails, 0 none
		want    string
		wantErr string
	}{
		{"csv", format.CSV, []byte("t1,a,1\nt2,,\n"), 0, `[t1|a|1][t2|NULL|NULL]`, ""},
		{"csv quoted", format.CSV, []byte("t1,\"a,\"\"b\"\"\",\"\"\n"), 0, `[t1|a,"b"|]`, ""},
		{"csv short record", format.CSV, []byte("t1,a,1\nt2,a\n"), 0, `[t1|a|1]`,
			"in: record 8 (byte offset 107): batch byte offset 7: record has 2 fields, table has 3 columns"},
		{"csv no newline", format.CSV, []byte("t1,a,1"), 0, ``,
			"in: record 7 (byte offset 100): batch byte offset 6: record does not end in a newline"},
		{"csv callback error names the record's start", format.CSV, []byte("t1,a,1\nt2,b,2\nt3,c,3\n"), 2, `[t1|a|1][t2|b|2]`,
			"in: record 8 (byte offset 107): refused"},
		{"pgcopy", format.PGCopy, cat(tuple("t1", "a", "1"), tuple("t2", "NULL", "")), 0, `[t1|a|1][t2|NULL|]`, ""},
		{"pgcopy trailer ends the records", format.PGCopy, cat(tuple("t1", "a", "1"), trailer, tuple("t2", "b", "2")), 0, `[t1|a|1]`, ""},
		{"pgcopy field count", format.PGCopy, cat(tuple("t1", "a", "1"), tuple("t2", "b")), 0, `[t1|a|1]`,
			`in: record 8 (byte offset 118): 2 fields, table "cpu" has 3 columns`},
		{"pgcopy callback error names the record's start", format.PGCopy, cat(tuple("t1", "a", "1"), tuple("t2", "b", "2")), 2, `[t1|a|1][t2|b|2]`,
			"in: record 8 (byte offset 118): refused"},
		{"pgcopy cut", format.PGCopy, tuple("t1", "a", "1")[:9], 0, ``, "in: record 7 (byte offset 100): "},
		{"ilp", format.ILP, []byte("cpu v=1\n"), 0, ``, "in: ilp input has no records of a table"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r records.Reader
			var got strings.Builder
			n := 0
			err := r.Read(c.data, c.kind, cpu, "in", 7, 100, func(fields [][]byte, where func(error) error) error {
				n++
				got.WriteString("[")
				for i, f := range fields {
					if i > 0 {
						got.WriteString("|")
					}
					if f == nil {
						f = []byte("NULL")
					}
					got.Write(f)
				}
				got.WriteString("]")
				if n == c.failAt {
					return where(errors.New("refused"))
				}
				return nil
			})
			if got.String() != c.want {
				t.Errorf("records %s, want %s", got.String(), c.want)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("t1,a,1\nt2,,\n"), false)
	f.Add([]byte("t1,\"a\nb\",1\r\n"), false)
	f.Add(append(pgcopy.AppendTuple(nil, []byte("t1"), nil, []byte("1")), 0xff, 0xff), true)
	f.Fuzz(func(t *testing.T, data []byte, binary bool) {
		kind := format.CSV
		if binary {
			kind = format.PGCopy
		}
		var r records.Reader
		err := r.Read(data, kind, cpu, "in", 1, 0, func(fields [][]byte, where func(error) error) error {
			if len(fields) != len(cpu.Columns) {
				t.Fatalf("%d fields, want %d", len(fields), len(cpu.Columns))
			}
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), "in: record ") {
			t.Fatalf("error without its record: %v", err)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	var data []byte
	for i := range 1000 {
		data = fmt.Appendf(data, "2016-01-01T00:%02d:%02dZ,host_%d,%d.5\n", i/60%60, i%60, i%10, i)
	}
	var r records.Reader
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Read(data, format.CSV, cpu, "in", 1, 0, func([][]byte, func(error) error) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTime(t *testing.T) {
	copyTime := pgcopy.AppendTuple(nil, []byte{0, 0, 0, 0, 0, 0, 0, 1})[6:] // 1 µs after 2000-01-01
	for _, c := range []struct {
		kind    format.Format
		f       string
		want    int64
		wantErr string
	}{
		{format.CSV, "2016-01-01T00:00:00Z", 1451606400000000000, ""},
		{format.CSV, "2016-01-01 00:00:00.000000001", 1451606400000000001, ""},
		{format.CSV, "1451606400000000001", 0, "its unit (s, ms, us or ns) is not given"},
		{format.CSV, "yesterday", 0, "not a time"},
		{format.PGCopy, string(copyTime), 946684800000001000, ""},
		{format.PGCopy, "\x00\x01", 0, "2 bytes for a timestamptz value"},
	} {
		got, err := records.Time(c.kind, []byte(c.f))
		switch {
		case c.wantErr == "" && (err != nil || got != c.want):
			t.Errorf("%s %q: %d, %v; want %d", c.kind, c.f, got, err, c.want)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s %q: error %v, want %q", c.kind, c.f, err, c.wantErr)
		}
	}
}
