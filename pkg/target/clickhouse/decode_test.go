package clickhouse

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// decodeTarget is a target whose cpu table is known (as a server of DateTime64 or of
// DateTime would have it made), so that decoding asks no server.
func decodeTarget(t testing.TB, dt64 bool) *Target {
	t.Helper()
	tg, err := New(Config{Addr: DefaultAddr, DBName: "bench", Dedup: true})
	if err != nil {
		t.Fatal(err)
	}
	tg.dt64 = dt64
	_, tb := tg.ddl(usecase.LookupTable("cpu"))
	tg.tables["cpu"] = tb
	return tg
}

// TestDecodeSeconds: a table of whole seconds takes whole seconds and refuses a finer
// time, naming the line; DateTime64(9) keeps it.
func TestDecodeSeconds(t *testing.T) {
	line := "cpu,hostname=h usage_user=1 1451606400000000000\ncpu,hostname=h usage_user=2 1451606400000001000\n"
	b := &load.Batch{Format: format.ILP, Data: []byte(line), Rows: 2, Source: "in.ilp", FirstLine: 1}
	var d decoder
	if _, err := d.decode(context.Background(), decodeTarget(t, false), b); err == nil ||
		!strings.Contains(err.Error(), "in.ilp: input line 2") || !strings.Contains(err.Error(), "has a fraction of a second") {
		t.Fatalf("err = %v", err)
	}
	groups, err := d.decode(context.Background(), decodeTarget(t, true), b)
	if err != nil || len(groups) != 1 || len(groups[0].rows) != 2 {
		t.Fatalf("groups %+v, %v", groups, err)
	}
}

func BenchmarkDecodeILP(b *testing.B) {
	data, rows := gentest.CPUHour(b, format.ILP)
	batch := &load.Batch{Format: format.ILP, Data: data, Rows: int(rows), Source: "cpu.ilp", FirstLine: 1}
	tg := decodeTarget(b, true)
	var d decoder
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.decode(context.Background(), tg, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzTSVString: a string written as a TabSeparated value (chDB's inserts) reads back as
// itself.
func FuzzTSVString(f *testing.F) {
	for _, s := range []string{"", "a", "a\tb\nc\\d", `\N`, "\\", "é\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		tsvValue(&b, s)
		if bytes.ContainsAny(b.Bytes(), "\t\n") {
			t.Fatalf("%q written as %q", s, b.Bytes())
		}
		if got := tsvUnescape(b.Bytes()); got != s && !(s == `\N` && got == `\N`) {
			t.Fatalf("%q read back as %q", s, got)
		}
	})
}
