package timescale

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// fakeResolver knows the use cases' tables and infers the others in memory.
type fakeResolver struct {
	tables  map[string]*tableInfo
	ensured int
}

func (r *fakeResolver) current(name []byte) *tableInfo { return r.tables[string(name)] }

func (r *fakeResolver) known(_ context.Context, name []byte) (*tableInfo, error) {
	if ti := r.tables[string(name)]; ti != nil {
		return ti, nil
	}
	if t := usecase.LookupTable(string(name)); t != nil {
		r.tables[t.Name] = newTableInfo(t, false)
		return r.tables[t.Name], nil
	}
	return nil, nil
}

func (r *fakeResolver) ensure(_ context.Context, t *schema.Table) (*tableInfo, error) {
	r.ensured++
	r.tables[t.Name] = newTableInfo(t, true)
	return r.tables[t.Name], nil
}

func TestILPEncodeMatchesPGCopy(t *testing.T) {
	cpu := genRows(cpuTable(), 40, 3, 4)
	weather := genRows(usecase.LookupTable("weather"), 30, 4, 5)
	mem := genRows(usecase.LookupTable("mem"), 20, 2, 6)
	var all []testRow
	for i := 0; i < 40; i++ { // interleave tables
		all = append(all, cpu[i])
		if i < 30 {
			all = append(all, weather[i])
		}
		if i < 20 {
			all = append(all, mem[i])
		}
	}
	data := ilpLines(t, all)
	data = append([]byte("# a comment\n\n"), data...)
	r := &fakeResolver{tables: map[string]*tableInfo{}}
	var x ilpEncoder
	for round := 0; round < 2; round++ { // the second round reuses buffers
		b := &load.Batch{Format: format.ILP, Data: data, Rows: len(all), Source: "t.ilp", FirstLine: 1, FirstRecord: 1}
		if err := x.encode(context.Background(), b, r); err != nil {
			t.Fatal(err)
		}
		if len(x.order) != 3 {
			t.Fatalf("%d tables", len(x.order))
		}
		want := map[string][]testRow{"cpu": cpu, "weather": weather, "mem": mem}
		for _, e := range x.order {
			rows := want[e.ti.t.Name]
			if e.rows != len(rows) {
				t.Fatalf("%s: %d rows, want %d", e.ti.t.Name, e.rows, len(rows))
			}
			if !bytes.Equal(e.buf, pgcopyTuples(rows)) {
				t.Fatalf("%s: tuples differ from the pgcopy encoding", e.ti.t.Name)
			}
		}
	}
	if r.ensured != 0 {
		t.Fatalf("inferred %d tables for use-case data", r.ensured)
	}
}

func TestILPInference(t *testing.T) {
	data := []byte("m,host=a v=1.5,n=3i,s=\"x\",ok=true 1451606400000000000\n" +
		"m,host=b,dc=d1 v=2,extra=7i 1451606410000000000\n" +
		"other f=1 1451606400000000000\n")
	r := &fakeResolver{tables: map[string]*tableInfo{}}
	var x ilpEncoder
	b := &load.Batch{Format: format.ILP, Data: data, Rows: 3, Source: "t.ilp", FirstLine: 1, FirstRecord: 1}
	if err := x.encode(context.Background(), b, r); err != nil {
		t.Fatal(err)
	}
	m := r.tables["m"]
	if m == nil || !m.inferred {
		t.Fatal("m not inferred")
	}
	var cols []string
	for _, c := range m.t.Columns {
		cols = append(cols, c.Name+":"+typeSQL(c.Type))
	}
	want := "time:timestamptz host:text v:float8 n:int8 s:text ok:boolean dc:text extra:int8"
	if got := strings.Join(cols, " "); got != want {
		t.Fatalf("columns %s\nwant    %s", got, want)
	}
	if x.order[0].rows != 2 || x.order[1].rows != 1 {
		t.Fatalf("rows %d %d", x.order[0].rows, x.order[1].rows)
	}
	fields := make([][]byte, len(m.t.Columns))
	next, err := nextTuple(x.order[0].buf, 0, m.t.Columns, fields)
	if err != nil {
		t.Fatal(err)
	}
	if string(fields[1]) != "a" || fields[6] != nil || fields[7] != nil || !bytes.Equal(fields[5], []byte{1}) {
		t.Fatalf("row 1 fields %q", fields)
	}
	if _, err := nextTuple(x.order[0].buf, next, m.t.Columns, fields); err != nil {
		t.Fatal(err)
	}
	if string(fields[6]) != "d1" || fields[3] != nil {
		t.Fatalf("row 2 fields %q", fields)
	}
}

func TestILPErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"unknown field", "cpu,hostname=h usage_user=1,bogus=2 1451606400000000000\n", `input record 10: table "cpu" has no column "bogus" (the line's field)`},
		{"type mismatch", "cpu,hostname=h usage_user=\"x\" 1451606400000000000\n", "input record 10: field usage_user: string value for a float8 column"},
		{"int4 tag", "weather,location_id=abc temperature_2m=1 1451606400000000000\n", "input record 10: tag location_id=abc: not an int4"},
		{"no timestamp", "cpu,hostname=h usage_user=1\n", "input record 10: line has no timestamp"},
		{"syntax", "cpu,hostname=h usage_user=1 1451606400000000000\ncpu usage_user=\n", "input line 21: invalid line protocol"},
		{"inferred conflict", "zz v=1 1451606400000000000\nzz v=\"s\" 1451606400000000000\n", `input record 11: "v" in table "zz": conflicts`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeResolver{tables: map[string]*tableInfo{}}
			var x ilpEncoder
			b := &load.Batch{Format: format.ILP, Data: []byte(tc.data), Rows: 1, Source: "t.ilp", FirstLine: 20, FirstRecord: 10}
			err := x.encode(context.Background(), b, r)
			var le *lineError
			if err == nil || !asLineError(err, &le) {
				t.Fatalf("err = %v", err)
			}
			if got := le.where(b) + ": " + le.Error(); !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func asLineError(err error, le **lineError) bool {
	e, ok := err.(*lineError)
	*le = e
	return ok
}

func FuzzILPEncode(f *testing.F) {
	f.Add([]byte("cpu,hostname=h usage_user=1,usage_idle=2 1451606400000000000\n"))
	f.Add([]byte("m,t=a b=1i,c=\"s\",d=t 1\nm x=1u 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fakeResolver{tables: map[string]*tableInfo{}}
		var x ilpEncoder
		b := &load.Batch{Format: format.ILP, Data: data, Source: "f", FirstLine: 1, FirstRecord: 1}
		if err := x.encode(context.Background(), b, r); err != nil {
			return
		}
		for _, e := range x.order {
			fields := make([][]byte, len(e.ti.t.Columns))
			off, n := 0, 0
			for off < len(e.buf) {
				next, err := nextTuple(e.buf, off, e.ti.t.Columns, fields)
				if err != nil {
					t.Fatalf("encoded tuple %d of %s does not decode: %v", n, e.ti.t.Name, err)
				}
				off, n = next, n+1
			}
			if n != e.rows {
				t.Fatalf("%s: %d tuples, %d rows", e.ti.t.Name, n, e.rows)
			}
		}
	})
}

func BenchmarkILPEncode(b *testing.B) {
	rows := genRows(cpuTable(), 5000, 100, 9)
	data := ilpLines(b, rows)
	r := &fakeResolver{tables: map[string]*tableInfo{}}
	var x ilpEncoder
	batch := &load.Batch{Format: format.ILP, Data: data, Rows: len(rows), Source: "b", FirstLine: 1, FirstRecord: 1}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := x.encode(context.Background(), batch, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(rows))/b.Elapsed().Seconds(), "rows/s")
}
