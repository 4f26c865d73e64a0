package tsbs

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format/csv"
)

const sample = "tags,hostname string,rack int64,load float64\n" +
	"cpu,usage_user,usage_system\n" +
	"mem,used\n" +
	"\n" +
	"tags,hostname=h0,rack=4,load=0.5\n" +
	"cpu,1451606400000000000,58,2\n" +
	"tags,hostname=h1,rack=,load=1\n" +
	"mem,1451606400000000000,\n" +
	"tags,hostname=h0,rack=4,load=0.5\n" +
	"cpu,1451606410000000000,59.5,3\n"

func convert(t *testing.T, in string) (string, error) {
	t.Helper()
	r, err := NewReader(strings.NewReader(in), 1<<10)
	if err != nil {
		return "", err
	}
	out, err := io.ReadAll(r)
	return string(out), err
}

func TestReader(t *testing.T) {
	got, err := convert(t, sample)
	if err != nil {
		t.Fatal(err)
	}
	want := "#tsload-csv v1\n" +
		"#table tags id:int4,hostname:text,rack:int8,load:float8\n" +
		"#table cpu time:timestamptz,tags_id:int4,usage_user:float8,usage_system:float8\n" +
		"#table mem time:timestamptz,tags_id:int4,used:float8\n" +
		"#data tags\n1,h0,4,0.5\n" +
		"#data cpu\n2016-01-01T00:00:00Z,1,58,2\n" +
		"#data tags\n2,h1,,1\n" +
		"#data mem\n2016-01-01T00:00:00Z,2,\n" +
		"#data cpu\n2016-01-01T00:00:10Z,1,59.5,3\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	r, _ := NewReader(strings.NewReader(sample), 1<<10)
	tables := r.Tables()
	if len(tables) != 3 || tables[0].Name != "tags" || !tables[0].Columns[1].Tag || tables[0].Columns[0].Tag || tables[2].Name != "mem" || len(tables[1].Columns) != 4 {
		t.Fatalf("tables %+v", tables)
	}
}

func TestReaderRefuses(t *testing.T) {
	head := "tags,hostname string\ncpu,u\n\n"
	for _, c := range []struct{ in, want string }{
		{"", "line 1 (byte offset 0): empty input"},
		{"cpu,u\n", "line 1 (byte offset 0): not a tags header"},
		{"tags,hostname text\n", "not a tags header"},
		{"tags,hostname string\ncpu,u\n", "line 3 (byte offset 27): the header does not end in a blank line"},
		{"tags,hostname string\n\n", "the header names no measurement"},
		{"tags,hostname string\ncpu,u\ncpu,v\n\n", "line 3 (byte offset 27): measurement line \"cpu,v\""},
		{head + "cpu,1,2\n", "line 4 (byte offset 28): want a tags line"},
		{head + "tags,hostname=a,extra=b\ncpu,1,2\n", "line 4 (byte offset 28): 2 tags, the header has 1"},
		{head + "tags,host=a\ncpu,1,2\n", "tag 1: want hostname=<value>"},
		{head + "tags,hostname=a\x00b\ncpu,1,2\n", `line 4 (byte offset 28): tag hostname: "a\x00b" holds a control character`},
		{head + "tags,hostname=a\n", "line 5 (byte offset 44): a tags line without its values line"},
		{head + "tags,hostname=a\nmem,1,2\n", "line 5 (byte offset 44): measurement \"mem\" is not in the header"},
		{head + "tags,hostname=a\ncpu,1,2,3\n", "line 5 (byte offset 44): 3 values, measurement cpu has a timestamp and 1 fields"},
		{head + "tags,hostname=a\ncpu,x,2\n", "timestamp \"x\" is not an integer"},
		{head + "tags,hostname=a\ncpu,1,NaN\n", "field 1 of cpu: \"NaN\" is not a finite number"},
	} {
		_, err := convert(t, c.in)
		var te *Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &te) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzReader: whatever the input, the Reader either refuses it or writes
// a stream whose every record has the field count of its table's
// declaration (so the splitter reads it as it is).
func FuzzReader(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("tags,a string\nm,f\n\ntags,a=\"x,y\"\nm,1,\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), 1<<12)
		if err != nil {
			return
		}
		out, err := io.ReadAll(r)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("%q: not an *Error: %v", in, err)
			}
		}
		cols := map[string]int{}
		cur := ""
		data := out
		for len(data) > 0 {
			line, rest, _ := bytes.Cut(data, []byte{'\n'})
			switch {
			case bytes.HasPrefix(line, []byte("#table ")):
				f := strings.Fields(string(line[7:]))
				cols[f[0]] = strings.Count(f[1], ",") + 1
			case bytes.HasPrefix(line, []byte("#data ")):
				cur = string(line[6:])
			case bytes.HasPrefix(line, []byte("#")):
			default:
				fields := make([][]byte, cols[cur])
				var scratch []byte
				next, _, err := csv.ParseRecord(data, 0, fields, &scratch)
				if err != nil {
					t.Fatalf("%q: record %q of %s: %v", in, line, cur, err)
				}
				rest = data[next:]
			}
			data = rest
		}
	})
}
