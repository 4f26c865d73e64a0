package parquet

import (
	"bytes"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// openBytes opens a Parquet file held in memory.
func openBytes(t testing.TB, data []byte, o Options) (*File, error) {
	t.Helper()
	return Open(bytes.NewReader(data), int64(len(data)), "test.parquet", o)
}

// readAll reads every row of pf, calling fn with each (0-based row).
func readAll(pf *File, fn func(i int64, r *format.Row)) error {
	for g := 0; g < pf.NumRowGroups(); g++ {
		rows, err := pf.RowGroup(g, 0)
		if err != nil {
			return err
		}
		for {
			at := rows.Row()
			r, err := rows.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return err
			}
			if fn != nil {
				fn(at, r)
			}
		}
		rows.Close()
	}
	return nil
}

// TestSample reads the file pyarrow wrote (testdata/make_sample.py): the
// table's columns from the logical types, every value and NULL as written.
func TestSample(t *testing.T) {
	data, err := os.ReadFile("testdata/sample.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pf, err := openBytes(t, data, Options{Table: "sensor"})
	if err != nil {
		t.Fatal(err)
	}
	want := schema.Table{Name: "sensor", Columns: []schema.Column{
		{Name: "ts", Type: schema.Timestamp},
		{Name: "site", Type: schema.Text, Tag: true}, {Name: "room", Type: schema.Text, Tag: true},
		{Name: "temperature", Type: schema.Float8}, {Name: "humidity", Type: schema.Float4},
		{Name: "count", Type: schema.Int8}, {Name: "level", Type: schema.Int4},
	}}
	if got := pf.Table(); got.Name != want.Name || !equalColumns(got.Columns, want.Columns) {
		t.Fatalf("table %+v, want %+v", got, want)
	}
	if pf.NumRows() != 1000 || pf.NumRowGroups() != 4 {
		t.Fatalf("%d rows in %d row groups, want 1000 in 4", pf.NumRows(), pf.NumRowGroups())
	}
	start := int64(1709251200) * 1e9 // 2024-03-01
	n := int64(0)
	err = readAll(pf, func(i int64, r *format.Row) {
		n++
		if r.Time != start+i/10*1e9+7000*(i%10) {
			t.Fatalf("row %d: time %d", i, r.Time)
		}
		if string(r.Tags[0]) != "site-"+itoa(i%10) {
			t.Fatalf("row %d: site %q", i, r.Tags[0])
		}
		if (r.Tags[1] == nil) != (i%10 == 9) || r.Tags[1] != nil && string(r.Tags[1]) != "room "+itoa(i%7) {
			t.Fatalf("row %d: room %q", i, r.Tags[1])
		}
		if (r.Null&1 != 0) != (i%97 == 5) || r.Null&1 == 0 && r.Float[0] != math.Round((20+float64(i%50)*0.25)*100)/100 {
			t.Fatalf("row %d: temperature %v (null %b)", i, r.Float[0], r.Null)
		}
		h, _ := strconv.ParseFloat(strconv.FormatFloat(float64(float32(float64(i%100)/3)), 'g', -1, 32), 64)
		if r.Float[1] != h || r.Int[2] != i*1000003 {
			t.Fatalf("row %d: humidity %v count %d", i, r.Float[1], r.Int[2])
		}
		if (r.Null&8 != 0) != (i%13 == 0) || r.Null&8 == 0 && r.Int[3] != i%200-100 {
			t.Fatalf("row %d: level %d (null %b)", i, r.Int[3], r.Null)
		}
	})
	if err != nil || n != 1000 {
		t.Fatalf("%d rows read: %v", n, err)
	}
}

// TestInt96 reads the file pyarrow wrote as Spark does
// (testdata/make_int96.py: use_deprecated_int96_timestamps): the INT96
// column is the time, to the nanosecond (issue 43 item 18).
func TestInt96(t *testing.T) {
	data, err := os.ReadFile("testdata/int96.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pf, err := openBytes(t, data, Options{Table: "spark"})
	if err != nil {
		t.Fatal(err)
	}
	want := []schema.Column{{Name: "ts", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true}, {Name: "temp", Type: schema.Float8}, {Name: "hum", Type: schema.Int8}}
	if got := pf.Table(); !equalColumns(got.Columns, want) {
		t.Fatalf("columns %+v, want %+v", got.Columns, want)
	}
	base := int64(1709251200)*1e9 + 123 // 2024-03-01T00:00:00.000000123Z
	n := int64(0)
	err = readAll(pf, func(i int64, r *format.Row) {
		n++
		if r.Time != base+i*(1e9+7) || string(r.Tags[0]) != "h"+itoa(i%3) {
			t.Fatalf("row %d: time %d host %q, want %d h%d", i, r.Time, r.Tags[0], base+i*(1e9+7), i%3)
		}
		if (r.Null&1 != 0) != (i == 9) || i < 9 && r.Float[0] != 20.5+float64(i) || r.Null&2 != 0 || r.Int[1] != 40+i {
			t.Fatalf("row %d: temp %v hum %d (null %b)", i, r.Float[0], r.Int[1], r.Null)
		}
	})
	if err != nil || n != 10 {
		t.Fatalf("%d rows read: %v", n, err)
	}
	// Named as the time column, it is one too.
	if _, err := openBytes(t, data, Options{Table: "spark", TimeColumn: "ts"}); err != nil {
		t.Fatal(err)
	}
}

// TestInt96Time: the Julian day and the nanoseconds of the day, before and
// after 1970, and the days beyond int64 nanoseconds refused.
func TestInt96Time(t *testing.T) {
	i96 := func(day uint32, nanos uint64) [3]uint32 { return [3]uint32{uint32(nanos), uint32(nanos >> 32), day} }
	for _, tc := range []struct {
		day   uint32
		nanos uint64
		ns    int64
		ok    bool
	}{
		{julianEpoch, 0, 0, true},
		{julianEpoch, 86400e9 - 1, 86400e9 - 1, true},
		{julianEpoch - 1, 86400e9 - 5e8, -5e8, true}, // 1969-12-31T23:59:59.5Z
		{2460371, 123, 1709251200e9 + 123, true},     // 2024-03-01
		{julianEpoch, 86400e9, 0, false},             // not a time of day
		{julianEpoch + 106752, 0, 0, false},          // 2262-04-12: past int64 nanoseconds
		{0, 0, 0, false},
	} {
		ns, ok := int96Time(i96(tc.day, tc.nanos))
		if ok != tc.ok || ok && ns != tc.ns {
			t.Errorf("day %d nanos %d: %d %v, want %d %v", tc.day, tc.nanos, ns, ok, tc.ns, tc.ok)
		}
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func equalColumns(a, b []schema.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMapping: the options choose the time, the tags, and refuse what
// cannot be a table, naming the column and its type.
func TestMapping(t *testing.T) {
	data, err := os.ReadFile("testdata/sample.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    Options
		cols string // the table's columns, or
		err  string // the error
	}{
		{"tags given", Options{Tags: []string{"site"}}, "", `column "room" is BYTE_ARRAY STRING but not a tag`},
		{"no tags", Options{Tags: []string{}}, "", `column "site" is BYTE_ARRAY STRING but not a tag`},
		{"integer tag", Options{Tags: []string{"site", "room", "level"}}, "ts site room level temperature humidity count", ""},
		{"float tag", Options{Tags: []string{"site", "room", "humidity"}}, "", `column "humidity" is FLOAT: a tag must be`},
		{"missing tag", Options{Tags: []string{"nope"}}, "", `no column "nope" for a tag`},
		{"time by name", Options{TimeColumn: "ts"}, "ts site room temperature humidity count level", ""},
		{"integer time", Options{TimeColumn: "count", TimeUnit: time.Millisecond}, "", `column "ts" is a second timestamp`},
		{"integer time without unit", Options{TimeColumn: "count"}, "", `time column "count" is INT64 INT(64,true): an integer time needs its unit`},
		{"float time", Options{TimeColumn: "temperature"}, "", `time column "temperature" is DOUBLE, not a TIMESTAMP`},
		{"no such time", Options{TimeColumn: "t"}, "", `no column "t" for the time (the columns: temperature, ts, site, room, humidity, count, level)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.Table = "sensor"
			pf, err := openBytes(t, data, c.o)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), "test.parquet: ") {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(pf.Table().ColumnNames(), " "); got != c.cols {
				t.Fatalf("columns %s, want %s", got, c.cols)
			}
			if err := readAll(pf, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRefused: a type tsload does not load, a truncated file and other
// bytes fail at Open, saying which file and what is wrong.
func TestRefused(t *testing.T) {
	bad, err := os.ReadFile("testdata/unsupported.parquet")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("testdata/sample.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		err  string
	}{
		{"boolean column", bad, `test.parquet: column "ok" is BOOLEAN, which tsload does not load`},
		{"truncated", good[:len(good)/2], "test.parquet: truncated Parquet file: no PAR1 magic at its end (byte offset 8174), so its footer (the schema and the row groups' places) is missing"},
		{"tiny", good[:6], "test.parquet: truncated Parquet file: 6 bytes"},
		{"not parquet", []byte("cpu,host=a v=1 1\n"), "test.parquet: not a Parquet file"},
		{"footer damaged", append(append([]byte{}, good[:len(good)-40]...), good[len(good)-8:]...), "test.parquet: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openBytes(t, c.data, Options{Table: "x"})
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err %v, want %q", err, c.err)
			}
		})
	}
}

// roundTrip writes rows with a Writer and reads them back.
func TestWriterRoundTrip(t *testing.T) {
	tb := &schema.Table{Name: "m", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp},
		{Name: "z_tag", Type: schema.Text, Tag: true}, {Name: "id", Type: schema.Int4, Tag: true},
		{Name: "f8", Type: schema.Float8}, {Name: "f4", Type: schema.Float4},
		{Name: "i8", Type: schema.Int8}, {Name: "i4", Type: schema.Int4},
	}}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, tb, 7)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	mk := func(i int64) format.Row {
		r := format.Row{Time: 1e18 + i*1000, Tags: [][]byte{[]byte("v" + itoa(i%3)), []byte(itoa(i))}, TagInt: []int64{0, i},
			Float: []float64{float64(i) / 7, float64(float32(i) / 3), 0, 0}, Int: []int64{0, 0, i << 40, -i}}
		if i%5 == 0 {
			r.Tags[0] = nil
			r.Null = 1 << (i % 4)
		}
		return r
	}
	for i := int64(0); i < n; i++ {
		r := mk(i)
		if err := w.WriteRow(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pf, err := openBytes(t, buf.Bytes(), Options{Table: "m", Tags: []string{"z_tag", "id"},
		Lookup: func(string) *schema.Table { return tb }})
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRowGroups() != (n+6)/7 || !equalColumns(pf.Table().Columns, tb.Columns) {
		t.Fatalf("%d row groups, table %+v", pf.NumRowGroups(), pf.Table())
	}
	got := int64(0)
	err = readAll(pf, func(i int64, r *format.Row) {
		got++
		w := mk(i)
		if r.Time != w.Time || string(r.Tags[0]) != string(w.Tags[0]) || (r.Tags[0] == nil) != (w.Tags[0] == nil) ||
			r.TagInt[1] != i || string(r.Tags[1]) != itoa(i) || r.Null != w.Null {
			t.Fatalf("row %d: %+v, want %+v", i, r, w)
		}
		for f := 0; f < 4; f++ {
			if w.Null&(1<<f) != 0 {
				continue
			}
			if f == 0 && r.Float[f] != w.Float[f] || f == 1 && float32(r.Float[f]) != float32(w.Float[f]) || f >= 2 && r.Int[f] != w.Int[f] {
				t.Fatalf("row %d field %d: %+v, want %+v", i, f, r, w)
			}
		}
	})
	if err != nil || got != n {
		t.Fatalf("%d rows: %v", got, err)
	}
	// Without the known table, the columns are the file's: sorted by name
	// (tags and fields apart), the integer tag a field.
	pf, err = openBytes(t, buf.Bytes(), Options{Table: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pf.Table().ColumnNames(), " "); got != "time z_tag f4 f8 i4 i8 id" {
		t.Fatalf("columns %s", got)
	}
}

// FuzzParquetOpen feeds damaged files to Open and the row readers: an
// error, never a panic or a hang.
func FuzzParquetOpen(f *testing.F) {
	for _, name := range []string{"testdata/sample.parquet", "testdata/unsupported.parquet", "testdata/int96.parquet", "testdata/nullrows.parquet"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := openBytes(t, data, Options{Table: "x"})
		if err != nil {
			return
		}
		// A footer may declare pages far larger than the file (the
		// library allocates what a page header says): those are left
		// to maxChunk, this explores damage within a few MiB.
		var declared int64
		for _, rg := range pf.f.Metadata().RowGroups {
			for _, cc := range rg.Columns {
				declared += cc.MetaData.TotalUncompressedSize
			}
		}
		if declared > 4<<20 {
			return
		}
		var rows int64
		if err := readAll(pf, func(int64, *format.Row) { rows++ }); err == nil && rows != pf.NumRows() {
			t.Fatalf("%d rows read of %d", rows, pf.NumRows())
		}
	})
}
