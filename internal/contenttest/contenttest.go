// Package contenttest holds what the targets' content-verification tests
// share: comparing a database's fingerprint with the one worked out by hand.
package contenttest

import (
	"context"
	"math"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Same fails t unless got equals want: every count, sum, length, time
// and min and max (Extremes, Min, Max, IntMin, IntMax) exactly, float
// sums within 1e-9 relative (the database adds in its own order).
func Same(t testing.TB, got *fingerprint.Table, want fingerprint.Table) {
	t.Helper()
	if got == nil {
		t.Fatalf("no fingerprint for %s", want.Name)
	}
	g, w := *got, want
	g.Fields, w.Fields = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("table %s:\n got %+v\nwant %+v", want.Name, g, w)
	}
	if len(got.Fields) != len(want.Fields) {
		t.Fatalf("table %s fields:\n got %+v\nwant %+v", want.Name, got.Fields, want.Fields)
	}
	for i, f := range got.Fields {
		wf := want.Fields[i]
		if !close(f.Sum, wf.Sum) || !close(f.AbsSum, wf.AbsSum) {
			t.Errorf("table %s field %s: sum %v abs %v, want %v %v", want.Name, f.Name, f.Sum, f.AbsSum, wf.Sum, wf.AbsSum)
		}
		f.Sum, f.AbsSum, wf.Sum, wf.AbsSum = 0, 0, 0, 0
		if f != wf {
			t.Errorf("table %s field:\n got %+v\nwant %+v", want.Name, f, wf)
		}
	}
}

func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// ReadILP is the fingerprint of line-protocol data (nanosecond
// timestamps) as the loader's reader computes it, with the keys tracked,
// fed through fingerprint.Acc from a line-protocol decoder of its own.
func ReadILP(t testing.TB, data string) map[string]*fingerprint.Read {
	t.Helper()
	acc := fingerprint.NewAcc(fingerprint.Options{Keys: true})
	d := lineprotocol.NewDecoderWithBytes([]byte(data))
	var tags fingerprint.TagSet
	for d.Next() {
		m, err := d.Measurement()
		if err != nil {
			t.Fatal(err)
		}
		tb := acc.Table(m)
		tags.Reset()
		for {
			k, v, err := d.NextTag()
			if err != nil {
				t.Fatal(err)
			}
			if k == nil {
				break
			}
			tags.Add(k, v)
		}
		type field struct {
			k []byte
			v lineprotocol.Value
		}
		var fields []field
		for {
			k, v, err := d.NextField()
			if err != nil {
				t.Fatal(err)
			}
			if k == nil {
				break
			}
			fields = append(fields, field{append([]byte(nil), k...), v})
		}
		ts, err := d.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		tb.Row(tags.Hash(), ts.UnixNano())
		for _, f := range fields {
			switch f.v.Kind() {
			case lineprotocol.Float:
				tb.Field(f.k, fingerprint.Float).Float(f.v.FloatV())
			case lineprotocol.Int:
				tb.Field(f.k, fingerprint.Int).Int(f.v.IntV())
			case lineprotocol.Uint:
				tb.Field(f.k, fingerprint.Uint).Uint(f.v.UintV())
			case lineprotocol.String:
				tb.Field(f.k, fingerprint.String).String(len(f.v.StringV()))
			case lineprotocol.Bool:
				tb.Field(f.k, fingerprint.Bool).Bool(f.v.BoolV())
			}
		}
	}
	return acc.Result()
}

// Query is the content query of what was read into a table: its tags
// given, its fields as read.
func Query(r *fingerprint.Read, tags ...string) fingerprint.Query {
	q := fingerprint.Query{Table: r.Name, Time: "time", Tags: tags}
	for _, f := range r.Fields {
		q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: f.Name, Kind: f.Kind})
	}
	return q
}

// Verify compares found with what was read (fingerprint.ExpectRead and
// Compare) and returns the mismatches as text, one a line ("" when the
// content verifies).
func Verify(read *fingerprint.Read, found *fingerprint.Table, overwrites bool) string {
	res := fingerprint.Compare(fingerprint.ExpectRead(read, overwrites), found)
	var out []string
	for _, m := range res.Mismatches {
		out = append(out, m.String())
	}
	return strings.Join(out, "\n")
}

// BenchFile is the cpu-only line-protocol file the content benchmarks
// load (TSLOAD_BENCH_CONTENT_FILE, made by scripts/bench_content.sh); the
// benchmark is skipped without it.
func BenchFile(b *testing.B) string {
	p := os.Getenv("TSLOAD_BENCH_CONTENT_FILE")
	if p == "" {
		b.Skip("TSLOAD_BENCH_CONTENT_FILE not set (scripts/bench_content.sh sets it)")
	}
	return p
}

// CPUQuery is the content query of the cpu-only use case's table.
func CPUQuery() fingerprint.Query {
	t := usecase.LookupTable("cpu")
	q := fingerprint.Query{Table: t.Name, Time: "time"}
	for _, c := range t.Columns[1:] {
		switch c.Type {
		case schema.Text:
			q.Tags = append(q.Tags, c.Name)
		case schema.Float8, schema.Float4:
			q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: c.Name, Kind: fingerprint.Float})
		case schema.Int8, schema.Int4:
			q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: c.Name, Kind: fingerprint.Int})
		}
	}
	sort.Slice(q.Fields, func(i, j int) bool { return q.Fields[i].Name < q.Fields[j].Name })
	return q
}

// BenchVerify times a row count and a content query of the loaded cpu
// table (rows of it), each as a sub-benchmark, and reports rows/s.
func BenchVerify(b *testing.B, tg load.Target, rows int64) {
	cc := tg
	ctx := context.Background()
	q := CPUQuery()
	b.Run("count", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			n, err := tg.Count(ctx, []string{q.Table})
			if err != nil || n[q.Table] != rows {
				b.Fatalf("count %v, %v; want %d", n, err, rows)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("content", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			got, err := cc.Content(ctx, []fingerprint.Query{q})
			if err != nil || got[q.Table].Rows != rows {
				b.Fatalf("content %+v, %v; want %d rows", got[q.Table], err, rows)
			}
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchLoad loads the benchmark file into database db of tg through the
// runner (dropping it first, verifying by count) and returns the rows.
func BenchLoad(b *testing.B, tg load.Target, loader, db string) int64 {
	var stderr strings.Builder
	start := time.Now()
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{BenchFile(b)}, BatchSize: 10000, Workers: 2, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: time.Minute, Stderr: &stderr,
		Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
		Loader:  loader, Target: strings.TrimPrefix(loader, "load_"),
	}, tg)
	if err != nil || res.Verify == nil || !res.Verify.OK {
		b.Fatalf("load: %v\n%s", err, stderr.String())
	}
	b.Logf("loaded %d rows in %s", res.Rows, time.Since(start).Round(time.Millisecond))
	return res.Rows
}

// Check asks cc for the content of the table read describes (its tags
// given) and compares it with read (Verify).
func Check(t testing.TB, cc load.Target, read *fingerprint.Read, overwrites bool, tags ...string) string {
	t.Helper()
	found, err := cc.Content(context.Background(), []fingerprint.Query{Query(read, tags...)})
	if err != nil {
		t.Fatal(err)
	}
	return Verify(read, found[read.Name], overwrites)
}
