package sqlquery

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var (
	t0 = time.Date(2016, 1, 4, 0, 0, 0, 0, time.UTC)
	t1 = t0.Add(2 * time.Hour)
)

// forms are one query of each form a statement can take.
var forms = []*query.Query{
	{Name: "rows", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Rows},
	{Name: "rows-newest", Table: "p_cpu", Start: t0.Add(1500), End: t1, Fields: []string{"usage_user", "usage_system"}, Agg: query.Rows, Limit: 3,
		Where: []query.Match{{Tag: "hostname", Values: []string{"host_0", "it's \"odd\""}}}, Filter: &query.Threshold{Field: "usage_user", Value: 42.5, Below: true}},
	{Name: "max-bucket", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Max, Bucket: time.Minute,
		Where: []query.Match{{Tag: "hostname", Values: []string{"host_0"}}}},
	{Name: "avg-group-bucket", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user", "usage_system"}, Agg: query.Avg, GroupBy: []string{"hostname"}, Bucket: time.Hour},
	{Name: "min-no-bucket", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_guest"}, Agg: query.Min, GroupBy: []string{"region", "hostname"}, Filter: &query.Threshold{Field: "usage_user", Value: 1e21}},
	{Name: "count", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_nice"}, Agg: query.Count},
	{Name: "max-limit", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Max, Bucket: time.Minute, Limit: 5},
	{Name: "max-group-limit", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Max, GroupBy: []string{"hostname"}, Bucket: 250 * time.Millisecond, Limit: 5},
	{Name: "last", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user", "usage_idle"}, Agg: query.Last, GroupBy: []string{"hostname"}},
	{Name: "last-one", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Last},
	{Name: "last-bucket", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Last, GroupBy: []string{"hostname"}, Bucket: 30 * time.Minute},
	{Name: "last-bucket-limit", Table: "p_cpu", Start: t0, End: t1, Fields: []string{"usage_user"}, Agg: query.Last, GroupBy: []string{"hostname"}, Bucket: 30 * time.Minute, Limit: 2},
	{Name: "change-runs", Table: "p_readings", Start: t0, End: t1, Fields: []string{"velocity"}, Agg: query.Avg, GroupBy: []string{"name"},
		Bucket: 10 * time.Minute, Change: &query.Change{Field: "velocity", Value: 1, Runs: true},
		Rollups: []query.Rollup{{Agg: query.Avg, GroupBy: []string{"name"}, Bucket: 24 * time.Hour}}},
	{Name: "change-rises", Table: "p_diagnostics", Start: t0, End: t1, Fields: []string{"status"}, Agg: query.Avg, GroupBy: []string{"model", "name"},
		Bucket: 10 * time.Minute, Change: &query.Change{Field: "status", Value: 1}, Rollups: []query.Rollup{{Agg: query.Count, GroupBy: []string{"model"}}}},
}

// TestGolden pins each dialect's statement of each form (-update rewrites
// testdata/<dialect>.sql).
func TestGolden(t *testing.T) {
	for _, d := range []*Dialect{Postgres(true), Postgres(false), QuestDB(), DataFusion("datafusion"), DuckDB(), SQLite(), ClickHouse(false)} {
		var b strings.Builder
		for _, q := range forms {
			s, lay, err := d.SQL(q, "time")
			if errors.Is(err, errors.ErrUnsupported) {
				fmt.Fprintf(&b, "-- %s: %v\n\n", q, err)
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", d.Name, q.Name, err)
			}
			if lay.Columns() != len(lay.Names()) {
				t.Errorf("%s %s: Columns %d, Names %v", d.Name, q.Name, lay.Columns(), lay.Names())
			}
			fmt.Fprintf(&b, "-- %s -> %s\n%s;\n\n", q, strings.Join(lay.Names(), ","), s)
		}
		path := filepath.Join("testdata", d.Name+".sql")
		if *update {
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != b.String() {
			t.Errorf("%s: the statements differ from %s (go test -update to accept):\n%s", d.Name, path, b.String())
		}
	}
}

func TestInvalid(t *testing.T) {
	q := *forms[0]
	q.End = q.Start
	if _, _, err := SQLite().SQL(&q, "time"); err == nil {
		t.Error("an empty window was stated")
	}
	q = *forms[1]
	q.Filter = &query.Threshold{Field: "usage_user", Value: math.Inf(1)}
	if _, _, err := SQLite().SQL(&q, "time"); err == nil {
		t.Error("an infinite threshold was stated")
	}
	if err := Unsupported("x", &q, "form"); !errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), q.Name) {
		t.Errorf("Unsupported: %v", err)
	}
}

func TestRow(t *testing.T) {
	lay := Layout{Groups: 2, TimeName: "tsq_time", Values: 3}
	r, err := lay.Row([]any{"a", nil, "2016-01-04 00:00:01.5", nil, []byte("2.5"), int64(3)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := query.Row{Group: []string{"a", ""}, Time: t0.Add(1500 * time.Millisecond), Values: []float64{math.NaN(), 2.5, 3}}
	if d := query.Diff(&query.Answer{Rows: []query.Row{want}}, &query.Answer{Rows: []query.Row{r}}, 0); d != "" {
		t.Error(d)
	}
	r, err = lay.MapRow(map[string]any{"tsq_g0": "a", "tsq_time": int64(t0.UnixNano()), "tsq_v1": 2.5, "tsq_v2": float32(3)}, UnixTime(time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	want.Time = t0
	if d := query.Diff(&query.Answer{Rows: []query.Row{want}}, &query.Answer{Rows: []query.Row{r}}, 0); d != "" {
		t.Error(d)
	}
	for _, bad := range [][]any{{"a"}, {1.5, "b", t0, 1, 2, 3}, {"a", "b", "yesterday", 1, 2, 3}, {"a", "b", t0, "x", 2, 3}} {
		if _, err := lay.Row(bad, nil); err == nil {
			t.Errorf("%v was read", bad)
		}
	}
	r, err = lay.TextRow([]string{"a", "", "2016-01-04T00:00:01.5Z", "", "2.5", "3"})
	if err != nil {
		t.Fatal(err)
	}
	want.Time = t0.Add(1500 * time.Millisecond)
	if d := query.Diff(&query.Answer{Rows: []query.Row{want}}, &query.Answer{Rows: []query.Row{r}}, 0); d != "" {
		t.Error(d)
	}
	for _, bad := range [][]string{{"a"}, {"a", "b", "", "1", "2", "3"}, {"a", "b", "yesterday", "1", "2", "3"}, {"a", "b", "2016-01-04T00:00:00Z", "x", "2", "3"}} {
		if _, err := lay.TextRow(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}

// FuzzRow: a result row of any text is read or refused, never a panic,
// and a value read is NaN only for NULL text.
func FuzzRow(f *testing.F) {
	f.Add("host_0", "2016-01-04T00:00:00Z", "1.5")
	f.Add("", "2016-01-04 00:00:00.123456", "null")
	f.Add("x", "yesterday", "1e400")
	f.Fuzz(func(t *testing.T, g, tm, v string) {
		lay := Layout{Groups: 1, TimeName: "tsq_time", Values: 1}
		r, err := lay.Row([]any{g, tm, v}, nil)
		// TextRow reads the same text as Row, "" being NULL.
		tr, terr := lay.TextRow([]string{g, tm, v})
		if (err == nil) != (terr == nil) {
			t.Fatalf("%q %q %q: Row error %v, TextRow error %v", g, tm, v, err, terr)
		}
		if err != nil {
			return
		}
		if d := query.Diff(&query.Answer{Rows: []query.Row{r}}, &query.Answer{Rows: []query.Row{tr}}, 0); d != "" {
			t.Errorf("%q %q %q: TextRow differs from Row: %s", g, tm, v, d)
		}
		if r.Group[0] != g || r.Time.Location() != time.UTC {
			t.Errorf("%q %q %q read as %v", g, tm, v, r)
		}
		if math.IsNaN(r.Values[0]) && v != "" && v != "null" && v != "NULL" && !strings.EqualFold(strings.TrimLeft(v, "+-"), "nan") {
			t.Errorf("%q read as NaN", v)
		}
	})
}
