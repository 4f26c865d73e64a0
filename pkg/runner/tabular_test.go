package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// linesTarget is a fake target of line protocol that keeps every line it
// was sent, and optionally has a catalog.
type linesTarget struct {
	*fakeTarget
	mu    sync.Mutex
	lines []string
	cat   map[string]*load.CatalogTable
}

func newLinesTarget() *linesTarget {
	f := newFake()
	f.refuse = format.CSV
	return &linesTarget{fakeTarget: f}
}

// Accepts takes line protocol only.
func (l *linesTarget) Accepts(f format.Format) error {
	if f != format.ILP {
		return os.ErrInvalid
	}
	return nil
}

func (l *linesTarget) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := l.fakeTarget.NewWriter(ctx, worker)
	return &linesWriter{Writer: w, l: l}, err
}

func (l *linesTarget) Hooks() load.Hooks { return load.Hooks{Catalog: l.Catalog} }

func (l *linesTarget) Catalog(_ context.Context, _ load.PrepareOptions, name string) (*load.CatalogTable, error) {
	return l.cat[name], nil
}

type linesWriter struct {
	load.Writer
	l *linesTarget
}

func (w *linesWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, os.ErrInvalid
	}
	w.l.mu.Lock()
	w.l.lines = append(w.l.lines, strings.Split(strings.TrimSuffix(string(b.Data), "\n"), "\n")...)
	w.l.mu.Unlock()
	return w.Writer.Write(ctx, b)
}

func (l *linesTarget) sorted() []string {
	out := append([]string(nil), l.lines...)
	sort.Strings(out)
	return out
}

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCSVAsLines: a target of line protocol gets CSV rows as lines: the
// time column and unit, the tags and the field types as the mapping says
// or as inferred from the first records, a CSV without a header named by
// Columns.
func TestCSVAsLines(t *testing.T) {
	for _, c := range []struct {
		name, data string
		m          load.Mapping
		want       []string
	}{
		{"header, inferred", "device,ts,kwh,n,note\nd1,1451606400,1.5,3,x y\nd2,1451606401,,4,\n",
			load.Mapping{TimeColumn: "ts", TimeUnit: time.Second},
			[]string{`meter,device=d1,note=x\ y kwh=1.5,n=3i 1451606400000000000`, `meter,device=d2 n=4i 1451606401000000000`}},
		{"tags given", "device,ts,kwh,n,note\nd1,1451606400,1.5,3,x y\nd2,1451606401,2,4,\n",
			load.Mapping{TimeColumn: "ts", TimeUnit: time.Second, Tags: []string{}},
			[]string{`meter device="d1",kwh=1.5,n=3i,note="x y" 1451606400000000000`, `meter device="d2",kwh=2,n=4i 1451606401000000000`}}, // an empty value is NULL
		{"no header", "2016-01-01T00:00:00Z,d1,7\n2016-01-01T00:00:01.5Z,d1,8\n",
			load.Mapping{Columns: []string{"time", "device", "kwh"}},
			[]string{`meter,device=d1 kwh=7i 1451606400000000000`, `meter,device=d1 kwh=8i 1451606401500000000`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lt := newLinesTarget()
			cfg := baseConfig(writeFile(t, "meter.csv", c.data))
			cfg.Mapping = c.m
			res, err := Run(context.Background(), cfg, lt)
			if err != nil {
				t.Fatal(err)
			}
			if got := lt.sorted(); strings.Join(got, "\n") != strings.Join(c.want, "\n") || res.Rows != int64(len(c.want)) {
				t.Fatalf("lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			var made *schema.Table
			for _, tb := range lt.prepared.Tables {
				made = tb
			}
			if made == nil || made.Columns[0].Name != c.m.TimeColumn && c.m.TimeColumn != "" {
				t.Fatalf("table prepared %+v: the time column is not first", made)
			}
		})
	}
}

// TestCatalogDecides: the database's table gives the lines their tags and
// field types, and a file that does not fit it is refused before Prepare.
func TestCatalogDecides(t *testing.T) {
	cat := map[string]*load.CatalogTable{"meter": {
		Table: &schema.Table{Name: "meter", Columns: []schema.Column{
			{Name: "timestamp", Type: schema.Timestamp}, {Name: "device", Type: schema.Text, Tag: true},
			{Name: "kwh", Type: schema.Float8}, {Name: "n", Type: schema.Int8}}},
		Types:    []string{"TIMESTAMP", "SYMBOL", "DOUBLE", "LONG"},
		Required: []bool{true, false, false, false},
	}}
	lt := newLinesTarget()
	lt.cat = cat
	cfg := baseConfig(writeFile(t, "meter.csv", "time,device,kwh,n\n2016-01-01T00:00:00Z,d1,7,1\n"))
	if _, err := Run(context.Background(), cfg, lt); err != nil {
		t.Fatal(err)
	}
	if got := lt.sorted(); len(got) != 1 || got[0] != "meter,device=d1 kwh=7,n=1i 1451606400000000000" {
		t.Fatalf("lines %q: the catalog's float kwh is written as the file's integer", got)
	}
	for _, c := range []struct{ data, want string }{
		{"time,device,volts\n2016-01-01T00:00:00Z,d1,7\n", "column volts: the input has it (int8), table meter does not"},
		{"time,device,n\n2016-01-01T00:00:00Z,d1,7.5\n", "column n: the input has float8, table meter has LONG"},
		{"time,device,n\n2016-01-01T00:00:00Z,d1,\n2016-01-01T00:00:01Z,d1,x\n", `record 2 (line 3, byte offset 39): column n: the input has "x" (text), table meter has LONG`},
	} {
		lt := newLinesTarget()
		lt.cat = cat
		var stderr bytes.Buffer
		cfg := baseConfig(writeFile(t, "meter.csv", c.data))
		cfg.Stderr = &stderr
		_, err := Run(context.Background(), cfg, lt)
		if err == nil || !strings.Contains(err.Error(), c.want) || lt.prepared != nil {
			t.Errorf("%q: err %v (prepared %v), want %q", c.data, err, lt.prepared != nil, c.want)
		}
	}
	// --do-load=false says what it would use.
	var stderr bytes.Buffer
	cfg = baseConfig(writeFile(t, "meter.csv", "time,device,kwh,n\n2016-01-01T00:00:00Z,d1,7,1\n"))
	cfg.DoLoad, cfg.Stderr = false, &stderr
	lt = newLinesTarget()
	lt.cat = cat
	if _, err := Run(context.Background(), cfg, lt); err != nil {
		t.Fatal(err)
	}
	want := "table meter exists in the database: its columns and types are used: time timestamptz, device SYMBOL, kwh DOUBLE, n LONG; as lines: time time, tags [device], fields kwh:float n:integer"
	if !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr %s\nwant %s", stderr.String(), want)
	}
	// A file the load would refuse is read all the same, and the refusal said.
	stderr.Reset()
	cfg = baseConfig(writeFile(t, "meter.csv", "time,device,n\n2016-01-01T00:00:00Z,d1,x\n"))
	cfg.DoLoad, cfg.Stderr = false, &stderr
	lt = newLinesTarget()
	lt.cat = cat
	if _, err := Run(context.Background(), cfg, lt); err == nil || !strings.Contains(err.Error(), `column n: "x" is not an integer`) {
		t.Fatalf("err %v: the bad value is not found reading", err)
	}
	if want := "mapping: a load would refuse it: "; !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "table meter has LONG") {
		t.Fatalf("stderr %s\nwant %s", stderr.String(), want)
	}
}

// TestMostlyNumbers: a column of numbers but for one n/a is loaded as a
// string field, the same in the table made for it (no tag: no QuestDB
// SYMBOL or DEDUP key) as in the lines, with a warning naming the column,
// the odd value and its line; the mapping is said on a load as with
// --do-load=false (issue 43 item 12).
func TestMostlyNumbers(t *testing.T) {
	var data strings.Builder
	data.WriteString("time,device,temp\n")
	for i := 0; i < 40; i++ {
		v := strconv.FormatFloat(20+float64(i)/2, 'f', -1, 64)
		if i == 17 {
			v = "n/a"
		}
		fmt.Fprintf(&data, "2024-03-01 00:00:%02d,d%d,%s\n", i, i%3, v)
	}
	for _, doLoad := range []bool{true, false} {
		var stderr bytes.Buffer
		lt := newLinesTarget()
		cfg := baseConfig(writeFile(t, "meter.csv", data.String()))
		cfg.DoLoad, cfg.Stderr = doLoad, &stderr
		if _, err := Run(context.Background(), cfg, lt); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`mapping: warning: ` + cfg.Inputs[0] + `: table meter: column temp is numbers in 39 of its sampled values but not "n/a" (first at record 18 (line 19, byte offset `,
			"time timestamptz, device text tag, temp text; as lines: time time, tags [device], fields temp:string",
		} {
			if !strings.Contains(stderr.String(), want) {
				t.Fatalf("do-load %v: stderr\n%s\nwant %s", doLoad, stderr.String(), want)
			}
		}
		if !doLoad {
			continue
		}
		for _, tb := range lt.prepared.Tables {
			for _, c := range tb.Columns {
				if c.Name == "temp" && (c.Tag || c.Type != schema.Text) {
					t.Fatalf("table prepared with temp %+v: want a text field as the lines have it", c)
				}
			}
		}
		if got := lt.sorted(); len(got) != 40 || !strings.Contains(strings.Join(got, "\n"), `meter,device=d2 temp="n/a" `) {
			t.Fatalf("lines %v", got)
		}
	}
}

// TestCSVRowsWithoutValue: a CSV record whose every field is empty, and
// one whose fields (not its time or tags) are, have no line: they are
// skipped and counted, whatever --skip-invalid says, the first said on
// stderr, and the other rows load (issue 43 item 13).
func TestCSVRowsWithoutValue(t *testing.T) {
	var stderr bytes.Buffer
	lt := newLinesTarget()
	cfg := baseConfig(writeFile(t, "meter.csv", "time,device,kwh,n\n2024-03-01 00:00:00,d1,1.5,3\n,,,\n2024-03-01 00:00:02,d2,,\n2024-03-01 00:00:03,d1,2.5,\n"))
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, lt)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`meter,device=d1 kwh=1.5,n=3i 1709251200000000000`, `meter,device=d1 kwh=2.5 1709251203000000000`}
	if got := lt.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") || res.Rows != 2 || res.SkippedRecords != 2 {
		t.Fatalf("rows %d skipped %d, lines\n%s", res.Rows, res.SkippedRecords, strings.Join(got, "\n"))
	}
	if !strings.Contains(stderr.String(), "meter.csv: line 3, byte offset 47: no value to load (every field is empty or NULL): skipped") {
		t.Fatalf("stderr %s", stderr.String())
	}
}
