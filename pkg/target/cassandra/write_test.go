package cassandra

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

func TestFieldValue(t *testing.T) {
	v := func(s string) lineprotocol.Value {
		var d lineprotocol.Decoder
		d = *lineprotocol.NewDecoderWithBytes([]byte("m f=" + s + " 1\n"))
		d.Next()
		d.Measurement()
		_, val, err := d.NextField()
		if err != nil {
			t.Fatal(err)
		}
		return val
	}
	for _, c := range []struct {
		typ  schema.Type
		in   string
		want any
		err  string
	}{
		{schema.Float8, "1.5", 1.5, ""},
		{schema.Float4, "1.5", float32(1.5), ""},
		{schema.Int8, "-3i", int64(-3), ""},
		{schema.Int8, "9223372036854775807u", int64(math.MaxInt64), ""},
		{schema.Int8, "9223372036854775808u", nil, "out of range for a bigint column (CQL has no unsigned integer)"},
		{schema.Int8, "true", int64(1), ""},
		{schema.Int4, "3000000000i", nil, "out of range for an int column"},
		{schema.Int8, "1.5", nil, "a float into a bigint column"},
		{schema.Text, `"héllo"`, "héllo", ""},
		{schema.Text, "1i", nil, "a int into a text column"},
	} {
		got, err := fieldValue(c.typ, v(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s into %s: %v, %v; want error %q", c.in, c.typ, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s into %s: %#v, %v; want %#v", c.in, c.typ, got, err, c.want)
		}
	}
}

func TestSetTime(t *testing.T) {
	w := &Writer{bucketMS: 3600_000}
	row := make([]any, 3)
	if err := w.setTime(row, -1_000_000); err != nil {
		t.Fatal(err)
	}
	if got := row[2].(time.Time).UnixMilli(); got != -3600_000 {
		t.Errorf("bucket of -1 ms: %d, want -3600000 (the hour that holds it)", got)
	}
	if err := w.setTime(row, 1_000_000_001); err == nil || !strings.Contains(err.Error(), "sub-millisecond") {
		t.Errorf("1,000,000,001 ns: %v", err)
	}
}

func TestTableName(t *testing.T) {
	for in, want := range map[string]string{"cpu": "cpu", "suite_resume_mid-load": "suite_resume_mid_load", "a.b c": "a_b_c", "": "", strings.Repeat("x", 49): ""} {
		got, err := TableName(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("TableName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestRing: the ranges cover every token once, in order.
func TestRing(t *testing.T) {
	for _, n := range []int{1, 3, 16} {
		r := ring(n)
		if r[0].lo != math.MinInt64 || r[n-1].hi != math.MaxInt64 {
			t.Fatalf("%d ranges: %v", n, r)
		}
		for i := 1; i < n; i++ {
			if r[i].lo != r[i-1].hi+1 || r[i].lo > r[i].hi {
				t.Fatalf("%d ranges: %v", n, r)
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Consistency: "MOST"}, `unknown Consistency "MOST"`},
		{Config{Consistency: "any"}, "Consistency ANY is for writes only"},
		{Config{Bucket: time.Microsecond}, "invalid Bucket 1µs"},
		{Config{Addr: "x"}, `invalid Addr "x"`},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

func ExampleTarget_DDL() {
	tg, _ := New(Config{})
	ddl, _ := tg.DDL("bench", &schema.Table{Name: "cpu", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "hostname", Type: schema.Text, Tag: true},
		{Name: "usage_user", Type: schema.Float8}, {Name: "n", Type: schema.Int8},
	}})
	fmt.Println(ddl)
	// Output:
	// CREATE TABLE IF NOT EXISTS "bench"."cpu" ("time" timestamp, "hostname" text, "usage_user" double, "n" bigint, "bucket" timestamp, PRIMARY KEY (("hostname", "bucket"), "time")) WITH CLUSTERING ORDER BY ("time" ASC)
}

// cpuTable is the cpu table of ten tags and ten fields as describe finds it.
func cpuTable(tg *Target) *table {
	tb := &table{name: "cpu", index: map[string]int{}}
	add := func(name string, typ schema.Type, tag bool) {
		tb.index[name] = len(tb.cols)
		tb.cols = append(tb.cols, column{name: name, typ: typ, tag: tag})
	}
	add("time", schema.Timestamp, false)
	for _, tag := range []string{"arch", "datacenter", "hostname", "os", "rack", "region", "service", "service_environment", "service_version", "team"} {
		add(tag, schema.Text, true)
	}
	tb.ntags = len(tb.cols) - 1
	for _, f := range []string{"usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait", "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"} {
		add(f, schema.Float8, false)
	}
	tb.insert = insertStmt(tg.cfg.Keyspace, tb)
	tg.tables["cpu"] = tb
	return tb
}

// BenchmarkDecode is a batch of 1,000 cpu lines (100 hosts) decoded and
// grouped by partition: the loader's own work per batch.
func BenchmarkDecode(b *testing.B) {
	tg, err := New(Config{Keyspace: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	cpuTable(tg)
	var data strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&data, "cpu,arch=x64,datacenter=eu-central-1a,hostname=host_%d,os=Ubuntu15.10,rack=49,region=eu-central-1,service=8,"+
			"service_environment=test,service_version=0,team=CHI usage_user=5.18,usage_system=6.08,usage_idle=47.67,usage_nice=8.08,"+
			"usage_iowait=74.53,usage_irq=34.38,usage_softirq=30.48,usage_steal=80.13,usage_guest=90.38,usage_guest_nice=95.91 %d\n",
			i%100, 1451606400000000000+int64(i/100)*10e9)
	}
	batch := &load.Batch{Format: format.ILP, Data: []byte(data.String()), Rows: 1000, Source: "bench", FirstLine: 1}
	w := &Writer{t: tg, bucketMS: tg.cfg.Bucket.Milliseconds()}
	b.SetBytes(int64(len(batch.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.decode(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	if len(w.parts) != 100 {
		b.Fatalf("%d partitions, want 100", len(w.parts))
	}
}

// TestAcksVisible: the query load checks answers at once only where a read
// at the writes' consistency meets every acknowledged write (W + R > RF);
// elsewhere it counts the rows visible first (load.Hooks.AcksNotVisible).
func TestAcksVisible(t *testing.T) {
	for _, c := range []struct {
		cons    string
		rf      int
		visible bool
	}{
		{"ONE", 1, true}, {"ONE", 3, false}, {"LOCAL_ONE", 2, false}, {"TWO", 3, true}, {"TWO", 4, false},
		{"QUORUM", 3, true}, {"QUORUM", 4, true}, {"LOCAL_QUORUM", 5, true}, {"ALL", 3, true}, {"THREE", 6, false},
	} {
		tg, err := New(Config{Addr: "127.0.0.1:9042", Consistency: c.cons, ReplicationFactor: c.rf})
		if err != nil {
			t.Fatal(err)
		}
		if got := !tg.Hooks().AcksNotVisible; got != c.visible {
			t.Errorf("%s, replication factor %d: visible once acknowledged %v", c.cons, c.rf, got)
		}
	}
}
