package split

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		head string
		want format.Format
	}{
		{"PGCOPY\n\377\r\n\x00", format.PGCopy},
		{"TSLCOPY\n\377\r\n", format.PGCopy},
		{"#tsload-csv v1\n", format.CSV},
		{"time,host,v\n2016-01-01T00:00:00Z,a,1\n", format.CSV},
		{"# comment\n\ncpu,host=a v=1 1\n", format.ILP},
		{"cpu v=1\n", format.ILP},
		{"my\\ table,a=b v=1\n", format.ILP},
		{"a,b=c\n", format.CSV},
		// A first line longer than Detect reads, cut inside a tag value.
		{"cpu,host=" + strings.Repeat("x", 70<<10), format.ILP},
		{"time,host," + strings.Repeat("x", 70<<10), format.CSV},
	}
	for _, tc := range tests {
		if got := DetectBytes([]byte(tc.head)); got != tc.want {
			t.Errorf("DetectBytes(%q) = %v, want %v", tc.head, got, tc.want)
		}
	}
}

// TestILPBatches checks batch boundaries, positions, metrics and tables.
func TestILPBatches(t *testing.T) {
	data := []byte("# header comment\ncpu,h=a f=1,g=2 1\nmem,h=a f=1 1\n# c\r\ncpu,h=b f=1,g=2,k=\"x y\" 2\r\n\ncpu,h=c f=1 3\nmem,h=b f=1 3\n")
	bs, _, sp, err := splitAll("d.ilp", data, Config{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		data              string
		rows, metrics     int
		line, record, off int64
		tables            string
	}
	wants := []want{
		{"cpu,h=a f=1,g=2 1\nmem,h=a f=1 1\n", 2, 3, 2, 1, 17, "cpu:1 mem:1"},
		{"cpu,h=b f=1,g=2,k=\"x y\" 2\n\ncpu,h=c f=1 3\n", 2, 4, 5, 3, 54, "cpu:2"},
		{"mem,h=b f=1 3\n", 1, 1, 8, 5, 96, "mem:1"},
	}
	if len(bs) != len(wants) {
		t.Fatalf("%d batches, want %d", len(bs), len(wants))
	}
	for i, w := range wants {
		b := bs[i]
		var tabs []string
		for _, tr := range b.Tables {
			tabs = append(tabs, fmt.Sprintf("%s:%d", tr.Name, tr.Rows))
		}
		got := want{string(b.Data), b.Rows, b.Metrics, b.FirstLine, b.FirstRecord, b.Offset, strings.Join(tabs, " ")}
		if got != w {
			t.Errorf("batch %d:\n got %+v\nwant %+v", i, got, w)
		}
		if b.Format != format.ILP || b.Source != "d.ilp" || b.Table != nil {
			t.Errorf("batch %d: format %v source %q table %v", i, b.Format, b.Source, b.Table)
		}
	}
	if sp.Rows() != 5 || sp.Bytes() != int64(len(data)) {
		t.Errorf("rows %d bytes %d", sp.Rows(), sp.Bytes())
	}
	// Escaped measurement names are unescaped in Tables.
	bs, _, _, err = splitAll("d.ilp", []byte("my\\ cpu,h=a f=1 1\n"), Config{})
	if err != nil || bs[0].Tables[0].Name != "my cpu" {
		t.Fatalf("escaped name: %v %+v", err, bs)
	}
}

func TestCSVBatches(t *testing.T) {
	data := cpuCSV(10, true) // quoted tags with a newline: 2 lines per record
	bs, _, _, err := splitAll("cpu.csv.gz", gz(data), Config{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 || bs[0].Rows != 4 || bs[2].Rows != 2 {
		t.Fatalf("batches %d", len(bs))
	}
	if bs[1].FirstRecord != 5 || bs[1].FirstLine != 2+4*2 || bs[0].Metrics != 4*9 {
		t.Errorf("batch 1 record %d line %d; batch 0 metrics %d", bs[1].FirstRecord, bs[1].FirstLine, bs[0].Metrics)
	}
	var all []byte
	for _, b := range bs {
		if b.Table == nil || b.Table.Name != "cpu" || len(b.Table.Columns) != 21 || !b.Table.Columns[1].Tag {
			t.Fatalf("table %+v", b.Table)
		}
		if len(b.Tables) != 1 || b.Tables[0].Name != "cpu" || b.Tables[0].Rows != int64(b.Rows) {
			t.Fatalf("tables %+v", b.Tables)
		}
		all = append(all, b.Data...)
	}
	if want := data[bytes.IndexByte(data, '\n')+1:]; !bytes.Equal(all, want) {
		t.Errorf("data differs:\n%s\nwant\n%s", all, want)
	}
	// An unknown table: types inferred from the first record.
	bs, _, sp, err := splitAll("stdin", []byte("ts,name,n,x\n2016-01-01T00:00:00Z,a,1,1.5\n"), Config{Table: "thing"})
	if err != nil {
		t.Fatal(err)
	}
	tb := sp.Tables()[0]
	got := fmt.Sprint(tb.Name, tb.Columns)
	if want := "thing[{ts timestamptz false} {name text true} {n int8 false} {x float8 false}]"; got != want {
		t.Errorf("inferred %s, want %s", got, want)
	}
	if bs[0].Metrics != 2 {
		t.Errorf("metrics %d", bs[0].Metrics)
	}
}

func TestMultiTableCSV(t *testing.T) {
	data := "#tsload-csv v1\n" +
		"#table cpu time:timestamptz,hostname:text,usage_user:float8\n" +
		"#table mem time:timestamptz,hostname:text,used:int8\n" +
		"#data cpu\n" +
		"2016-01-01T00:00:00Z,a,1\n2016-01-01T00:00:00Z,b,\n" +
		"#data mem\n" +
		"2016-01-01T00:00:00Z,a,7\n" +
		"#data cpu\n" +
		"2016-01-01T00:00:10Z,a,1\n"
	bs, _, sp, err := splitAll("s.csv", []byte(data), Config{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sp.Tables()); n != 2 || sp.Tables()[1].Name != "mem" || !sp.Tables()[1].Columns[1].Tag {
		t.Fatalf("tables %v", sp.Tables())
	}
	var got []string
	for _, b := range bs {
		got = append(got, fmt.Sprintf("%s %d rows %d metrics rec %d line %d: %q", b.Table.Name, b.Rows, b.Metrics, b.FirstRecord, b.FirstLine, b.Data))
	}
	want := []string{
		`cpu 2 rows 1 metrics rec 1 line 5: "2016-01-01T00:00:00Z,a,1\n2016-01-01T00:00:00Z,b,\n"`,
		`cpu 1 rows 1 metrics rec 4 line 10: "2016-01-01T00:00:10Z,a,1\n"`,
		`mem 1 rows 1 metrics rec 3 line 8: "2016-01-01T00:00:00Z,a,7\n"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPGCopyBatches(t *testing.T) {
	cpu := mustTable(t, "cpu")
	var tuples [][]byte
	for i := 0; i < 7; i++ {
		tuples = append(tuples, rowFor(cpu, fmt.Sprint("h", i), 11+i%3)) // one NULL field each
	}
	bs, _, _, err := splitAll("cpu.pgcopy.gz", gz(pgFile(tuples...)), Config{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 || bs[2].Rows != 1 || bs[0].Metrics != 3*9 || bs[1].FirstRecord != 4 || bs[1].Offset != int64(19+3*len(tuples[0])) {
		t.Fatalf("%d batches; %+v", len(bs), bs[1])
	}
	var all []byte
	for _, b := range bs {
		all = append(all, b.Data...)
	}
	if !bytes.Equal(all, bytes.Join(tuples, nil)) {
		t.Error("tuples differ")
	}
	if w := bs[1].Where(); w != fmt.Sprintf("cpu.pgcopy.gz: records 4-6 (byte offset %d)", bs[1].Offset) {
		t.Errorf("where %s", w)
	}
}

func TestTSLCopy(t *testing.T) {
	cpu, mem := mustTable(t, "cpu"), mustTable(t, "mem")
	r := func(tb *schema.Table, h string) []byte { return rowFor(tb, h) }
	data := cat(tslHeader(cpu, mem),
		tslFrame(0, r(cpu, "a"), r(cpu, "b")),
		tslFrame(1, r(mem, "a")),
		tslFrame(1),
		tslFrame(0, r(cpu, "c")),
		[]byte{0xff, 0xff})
	bs, _, sp, err := splitAll("s.bin", data, Config{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sp.Tables()[0] != cpu || sp.Tables()[1] != mem {
		t.Errorf("known tables not reused")
	}
	var got []string
	for _, b := range bs {
		got = append(got, fmt.Sprintf("%s:%d@%d", b.Table.Name, b.Rows, b.FirstRecord))
	}
	if g := strings.Join(got, " "); g != "cpu:2@1 cpu:1@4 mem:1@3" {
		t.Errorf("got %s", g)
	}
}

// TestParts checks that routing keeps every series in one part, in order.
func TestParts(t *testing.T) {
	cpu := mustTable(t, "cpu")
	var tuples [][]byte
	for i := 0; i < 200; i++ {
		tuples = append(tuples, rowFor(cpu, fmt.Sprint("host_", i%13)))
	}
	// 13 series, so that all falling in one part (the hash seed is random)
	// is practically impossible.
	csv13 := cpuCSV(0, false)
	for i := 0; i < 200; i++ {
		csv13 = fmt.Appendf(csv13, "2016-01-01T00:00:%02dZ,host_%d,eu,eu-1a,1,Ubuntu,x86,LON,1,0,test,1.5,2,3,4,5,6,7,8,9,\n", i%60, i%13)
	}
	var ilp13 []byte
	for i := 0; i < 200; i++ {
		ilp13 = fmt.Appendf(ilp13, "cpu,hostname=host_%d,region=eu usage_user=%d.5 %d\n", i%13, i, i)
	}
	inputs := []struct {
		name string
		data []byte
	}{
		{"d.ilp", ilp13},
		{"cpu.csv", csv13},
		{"cpu.bin", pgFile(tuples...)},
	}
	for _, in := range inputs {
		bs, parts, _, err := splitAll(in.name, in.data, Config{BatchSize: 7, Parts: 3})
		if err != nil {
			t.Fatal(err)
		}
		seriesPart := map[string]int{}
		lastRecord := map[string]int64{}
		rows := 0
		used := map[int]bool{}
		for i, b := range bs {
			rows += b.Rows
			used[parts[i]] = true
			if b.Rows > 7 {
				t.Fatalf("%s: batch of %d rows", in.name, b.Rows)
			}
			// The series key: the host tag's value.
			for _, host := range hosts(b.Data) {
				if p, ok := seriesPart[host]; ok && p != parts[i] {
					t.Fatalf("%s: series %s in parts %d and %d", in.name, host, p, parts[i])
				}
				seriesPart[host] = parts[i]
			}
			if b.FirstRecord <= lastRecord[fmt.Sprint(parts[i])] {
				t.Fatalf("%s: part %d out of order", in.name, parts[i])
			}
			lastRecord[fmt.Sprint(parts[i])] = b.FirstRecord
		}
		if rows != 200 || len(used) < 2 {
			t.Fatalf("%s: rows %d parts used %v", in.name, rows, used)
		}
	}
}

// hosts extracts "host_N" values from a batch (any format).
func hosts(data []byte) []string {
	var out []string
	for {
		i := bytes.Index(data, []byte("host_"))
		if i < 0 {
			return out
		}
		j := i + 5
		for j < len(data) && data[j] >= '0' && data[j] <= '9' {
			j++
		}
		out = append(out, string(data[i:j]))
		data = data[j:]
	}
}

func TestSkipInvalidAndLimit(t *testing.T) {
	data := []byte("cpu f=1 1\ncpu,bad f=1 1\ncpu f= 2\ncpu f=3 3\ncpu f=4 4\n")
	bs, _, sp, err := splitAll("d.ilp", data, Config{SkipInvalid: true})
	if err != nil || len(bs) != 1 || bs[0].Rows != 3 || sp.Skipped() != 2 {
		t.Fatalf("skip: %v %d", err, sp.Skipped())
	}
	if bs[0].FirstRecord != 1 {
		t.Errorf("first record %d", bs[0].FirstRecord)
	}
	bs, _, sp, err = splitAll("d.ilp", ilpLines(100), Config{BatchSize: 30, Limit: 45})
	if err != nil || len(bs) != 2 || bs[0].Rows != 30 || bs[1].Rows != 15 || sp.Rows() != 45 {
		t.Fatalf("limit: %v %d batches", err, len(bs))
	}
	// CSV: a short record is skipped; pgcopy: a tuple with a wrong field count.
	csv := append(cpuCSV(2, false), []byte("2016-01-01T00:00:00Z,x\n")...)
	csv = append(csv, cpuCSV(3, false)[bytes.IndexByte(cpuCSV(1, false), '\n')+1:]...)
	bs, _, sp, err = splitAll("cpu.csv", csv, Config{SkipInvalid: true})
	if err != nil || bs[0].Rows != 5 || sp.Skipped() != 1 {
		t.Fatalf("csv skip: %v", err)
	}
	cpu := mustTable(t, "cpu")
	bs, _, sp, err = splitAll("cpu.bin", pgFile(rowFor(cpu, "a"), pgTuple(nil, nil), rowFor(cpu, "b")), Config{SkipInvalid: true})
	if err != nil || bs[0].Rows != 2 || sp.Skipped() != 1 {
		t.Fatalf("pgcopy skip: %v", err)
	}
}

// TestCRLF checks that CRLF inputs give the same batches as LF inputs, and
// that a CR inside a quoted CSV field is kept.
func TestCRLF(t *testing.T) {
	for _, tc := range []struct {
		name string
		lf   []byte
	}{
		{"d.ilp", ilpLines(20)},
		{"cpu.csv", cpuCSV(20, false)},
	} {
		crlf := bytes.ReplaceAll(tc.lf, []byte("\n"), []byte("\r\n"))
		a, _, _, err1 := splitAll(tc.name, tc.lf, Config{BatchSize: 7})
		b, _, _, err2 := splitAll(tc.name, crlf, Config{BatchSize: 7})
		if err1 != nil || err2 != nil || len(a) != len(b) {
			t.Fatalf("%s: %v %v", tc.name, err1, err2)
		}
		for i := range a {
			if !bytes.Equal(a[i].Data, b[i].Data) || a[i].FirstLine != b[i].FirstLine || a[i].Rows != b[i].Rows {
				t.Fatalf("%s batch %d differs:\n%q\n%q", tc.name, i, a[i].Data, b[i].Data)
			}
		}
	}
	bs, _, _, err := splitAll("t.csv", []byte("time,h\r\n2016-01-01T00:00:00Z,\"a\r\nb\"\r\n"), Config{Table: "t"})
	if err != nil || string(bs[0].Data) != "2016-01-01T00:00:00Z,\"a\r\nb\"\n" {
		t.Fatalf("%v %q", err, bs[0].Data)
	}
}

// TestMaxBatchBytes: long rows and runs of comments cut batches early.
func TestMaxBatchBytes(t *testing.T) {
	data := "cpu f=1 1\n" + strings.Repeat("# a comment line\n", 1000) + "cpu f=2 2\n"
	bs, _, _, err := splitAll("d.ilp", []byte(data), Config{MaxBatchBytes: 100})
	if err != nil || len(bs) != 2 || bs[0].Rows != 1 || len(bs[0].Data) > 100+17 || bs[1].FirstLine != 1002 {
		t.Fatalf("%v %d batches", err, len(bs))
	}
	cpu := mustTable(t, "cpu")
	row := rowFor(cpu, "h")
	var tuples [][]byte
	for i := 0; i < 10; i++ {
		tuples = append(tuples, row)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"cpu.bin", pgFile(tuples...)}, {"d.ilp", ilpLines(10)}, {"cpu.csv", cpuCSV(10, false)}} {
		bs, _, _, err = splitAll(in.name, in.data, Config{MaxBatchBytes: 3 * len(row)})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bs[:len(bs)-1] {
			if len(b.Data) < 3*len(row) || len(b.Data) >= 3*len(row)+len(row) {
				t.Fatalf("%s batch %d: %d bytes %d rows", in.name, i, len(b.Data), b.Rows)
			}
		}
	}
}
