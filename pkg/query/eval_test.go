package query

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// points are two hosts, a row every 30 s for 3 minutes from t0; host b has
// no usage_system in its rows after the first minute.
func points() []Point {
	var ps []Point
	for i := 0; i < 6; i++ {
		for h, host := range []string{"a", "b"} {
			p := Point{Time: t0.Add(time.Duration(i) * 30 * time.Second), Tags: map[string]string{"host": host},
				Fields: map[string]float64{"usage_user": float64(10*h + i), "usage_system": float64(100 - i)}}
			if host == "b" && i >= 2 {
				delete(p.Fields, "usage_system")
			}
			ps = append(ps, p)
		}
	}
	return ps
}

func eval(q Query) *Answer { return Eval(&q, slices.Values(points())) }

func rowsOf(rows ...Row) *Answer { return &Answer{Rows: rows} }

func at(min float64) time.Time { return t0.Add(time.Duration(min * float64(time.Minute))) }

func TestEval(t *testing.T) {
	nan := math.NaN()
	end := t0.Add(time.Hour)
	for _, tc := range []struct {
		name string
		q    Query
		want *Answer
	}{
		{"max per minute of one host", Query{Fields: []string{"usage_user"}, Agg: Max, Bucket: time.Minute, Where: []Match{{"host", []string{"b"}}}},
			rowsOf(Row{Time: at(0), Values: []float64{11}}, Row{Time: at(1), Values: []float64{13}}, Row{Time: at(2), Values: []float64{15}})},
		{"avg by host over the window", Query{Fields: []string{"usage_user", "usage_system"}, Agg: Avg, GroupBy: []string{"host"}},
			rowsOf(Row{Group: []string{"a"}, Values: []float64{2.5, 97.5}}, Row{Group: []string{"b"}, Values: []float64{12.5, 99.5}})},
		{"last by host", Query{Fields: []string{"usage_user", "usage_system"}, Agg: Last, GroupBy: []string{"host"}},
			rowsOf(Row{Group: []string{"a"}, Time: at(2.5), Values: []float64{5, 95}}, Row{Group: []string{"b"}, Time: at(2.5), Values: []float64{15, nan}})},
		{"count of a field some rows lack", Query{Fields: []string{"usage_system"}, Agg: Count, GroupBy: []string{"host"}},
			rowsOf(Row{Group: []string{"a"}, Values: []float64{6}}, Row{Group: []string{"b"}, Values: []float64{2}})},
		{"min above a threshold", Query{Fields: []string{"usage_user"}, Agg: Min, Filter: &Threshold{Field: "usage_user", Value: 12}},
			rowsOf(Row{Values: []float64{13}})},
		{"rows below a threshold, newest 2", Query{Fields: []string{"usage_user"}, Agg: Rows, Filter: &Threshold{Field: "usage_user", Value: 4, Below: true}, Limit: 2},
			rowsOf(Row{Time: at(1), Values: []float64{2}}, Row{Time: at(1.5), Values: []float64{3}})},
		{"newest 2 buckets per host", Query{Fields: []string{"usage_user"}, Agg: Max, Bucket: time.Minute, GroupBy: []string{"host"}, Limit: 2},
			rowsOf(Row{Group: []string{"a"}, Time: at(1), Values: []float64{3}}, Row{Group: []string{"a"}, Time: at(2), Values: []float64{5}},
				Row{Group: []string{"b"}, Time: at(1), Values: []float64{13}}, Row{Group: []string{"b"}, Time: at(2), Values: []float64{15}})},
		{"half-open window", Query{Fields: []string{"usage_user"}, Agg: Count, Start: at(1), End: at(2)},
			rowsOf(Row{Values: []float64{4}})},
		{"a field no row has: no rows", Query{Fields: []string{"nope"}, Agg: Max},
			rowsOf()},
	} {
		q := tc.q
		q.Table = "cpu"
		if q.Start.IsZero() {
			q.Start, q.End = t0, end
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := Diff(tc.want, eval(q), 0); d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
}

func TestBucketStart(t *testing.T) {
	for _, tc := range []struct{ in, want time.Time }{
		{time.Unix(90, 0), time.Unix(60, 0)},
		{time.Unix(60, 0), time.Unix(60, 0)},
		{time.Unix(-1, 0), time.Unix(-60, 0)},
	} {
		if got := BucketStart(tc.in, time.Minute); !got.Equal(tc.want) {
			t.Errorf("BucketStart(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	var ps []Point
	for i := 0; i < 10000; i++ {
		ps = append(ps, Point{Time: t0.Add(time.Duration(i) * 10 * time.Second), Tags: map[string]string{"host": string(rune('a' + i%10))},
			Fields: map[string]float64{"usage_user": float64(i % 100)}})
	}
	q := &Query{Table: "cpu", Start: t0, End: t0.Add(48 * time.Hour), Fields: []string{"usage_user"}, Agg: Avg, GroupBy: []string{"host"}, Bucket: time.Hour}
	b.ReportAllocs()
	for b.Loop() {
		Eval(q, slices.Values(ps))
	}
}

func TestEvalStages(t *testing.T) {
	end := t0.Add(time.Hour)
	maxPerMinute := func(h *Having, r ...Rollup) Query {
		return Query{Fields: []string{"usage_user"}, Agg: Max, GroupBy: []string{"host"}, Bucket: time.Minute, Having: h, Rollups: r}
	}
	for _, tc := range []struct {
		name string
		q    Query
		want *Answer
	}{
		{"having above on a mean", Query{Fields: []string{"usage_user"}, Agg: Avg, GroupBy: []string{"host"}, Having: &Having{Field: "usage_user", Value: 5}},
			rowsOf(Row{Group: []string{"b"}, Values: []float64{12.5}})},
		{"having below on a bucket", maxPerMinute(&Having{Field: "usage_user", Value: 4, Below: true}),
			rowsOf(Row{Group: []string{"a"}, Time: at(0), Values: []float64{1}}, Row{Group: []string{"a"}, Time: at(1), Values: []float64{3}})},
		{"having a ratio: a NULL divisor is not kept", Query{Fields: []string{"usage_user", "usage_system"}, Agg: Last, GroupBy: []string{"host"},
			Having: &Having{Field: "usage_user", Over: "usage_system", Value: 0.05}},
			rowsOf(Row{Group: []string{"a"}, Time: at(2.5), Values: []float64{5, 95}})},
		{"count of buckets, scaled, kept above", maxPerMinute(&Having{Field: "usage_user", Value: 2},
			Rollup{Agg: Count, GroupBy: []string{"host"}, Scale: 0.5, Having: &Having{Field: "count", Value: 1.2}}),
			rowsOf(Row{Group: []string{"b"}, Values: []float64{1.5}})},
		{"mean over hosts of 2-minute buckets", maxPerMinute(nil, Rollup{Agg: Avg, Bucket: 2 * time.Minute}),
			rowsOf(Row{Time: at(0), Values: []float64{7}}, Row{Time: at(2), Values: []float64{10}})},
		{"count per day, then its mean per host", maxPerMinute(nil, Rollup{Agg: Count, GroupBy: []string{"host"}, Bucket: 24 * time.Hour},
			Rollup{Agg: Avg, GroupBy: []string{"host"}}),
			rowsOf(Row{Group: []string{"a"}, Values: []float64{3}}, Row{Group: []string{"b"}, Values: []float64{3}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Name, q.Table, q.Start, q.End = tc.name, "cpu", t0, end
			if err := q.Validate(); err != nil {
				t.Fatal(err)
			}
			if d := Diff(tc.want, eval(q), 1e-12); d != "" {
				t.Errorf("%s: %s", q.String(), d)
			}
		})
	}
}

func TestValidateStages(t *testing.T) {
	base := Query{Name: "q", Table: "cpu", Start: t0, End: t0.Add(time.Hour), Fields: []string{"usage_user"}, Agg: Max, GroupBy: []string{"host"},
		Bucket: time.Minute}
	for _, tc := range []struct {
		change func(*Query)
		want   string
	}{
		{func(q *Query) { q.Agg, q.GroupBy, q.Bucket, q.Having = Rows, nil, 0, &Having{Field: "usage_user"} }, "needs an aggregate"},
		{func(q *Query) { q.Limit, q.Having = 5, &Having{Field: "usage_user"} }, "needs an aggregate without a limit"},
		{func(q *Query) { q.Having = &Having{Field: "nope"} }, `"nope" is not one of usage_user`},
		{func(q *Query) { q.Having = &Having{Field: "usage_user", Over: "x"} }, `"x" is not one of`},
		{func(q *Query) { q.Rollups = []Rollup{{Agg: Max}} }, "a rollup counts or averages"},
		{func(q *Query) { q.Rollups = []Rollup{{Agg: Count, GroupBy: []string{"region"}}} }, "region is not a group"},
		{func(q *Query) { q.Rollups = []Rollup{{Agg: Count, Bucket: 90 * time.Second}} }, "bucket 1m30s is not a multiple"},
		{func(q *Query) { q.Rollups = []Rollup{{Agg: Count, Having: &Having{Field: "usage_user"}}} }, `"usage_user" is not one of count`},
	} {
		q := base
		tc.change(&q)
		if err := q.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", q.String(), err, tc.want)
		}
	}
}

// TestChange checks a Change by hand: rises, and runs with their hours,
// a run the window cuts at either end left out, a period without rows
// skipped (the next period with rows follows).
func TestChange(t *testing.T) {
	// truck a's mean velocity per 10 minutes (-1: no row): on, off, on, on, -, off, on, off, on.
	// truck b's: off, on (cut by the window's end).
	speeds := map[string][]float64{"a": {5, 0, 5, 5, -1, 0, 5, 0, 5}, "b": {0, 5}}
	var pts []Point
	for name, vs := range speeds {
		for i, v := range vs {
			if v < 0 {
				continue
			}
			// two readings per period, their mean v
			for _, d := range []float64{-0.5, 0.5} {
				pts = append(pts, Point{Time: t0.Add(time.Duration(i)*10*time.Minute + time.Duration(d+1)*time.Minute),
					Tags: map[string]string{"name": name, "model": "m"}, Fields: map[string]float64{"velocity": v + d}})
			}
		}
	}
	q := &Query{Name: "runs", Table: "readings", Start: t0, End: t0.Add(24 * time.Hour), Fields: []string{"velocity"}, Agg: Avg,
		GroupBy: []string{"model", "name"}, Bucket: 10 * time.Minute, Change: &Change{Field: "velocity", Value: 1, Runs: true}}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	got := Eval(q, slices.Values(pts))
	// a's runs: [20m, 50m) (the empty 40m period skipped), [60m, 70m); the first run (no off row before) and the last (no
	// off row after) are cut; b's run is cut.
	want := &Answer{Rows: []Row{{Group: []string{"m", "a"}, Time: t0.Add(20 * time.Minute), Values: []float64{0.5}},
		{Group: []string{"m", "a"}, Time: t0.Add(60 * time.Minute), Values: []float64{1.0 / 6}}}}
	if d := Diff(want, got, 1e-12); d != "" {
		t.Errorf("runs: %s", d)
	}
	q.Change.Runs = false
	q.Rollups = []Rollup{{Agg: Count, GroupBy: []string{"model"}}}
	if cols := q.Columns(); !slices.Equal(cols, []string{"count"}) {
		t.Errorf("columns %v", cols)
	}
	got = Eval(q, slices.Values(pts))
	// rises: a at 20m, 60m, 80m; b at 10m.
	want = &Answer{Rows: []Row{{Group: []string{"m"}, Values: []float64{4}}}}
	if d := Diff(want, got, 0); d != "" {
		t.Errorf("rises: %s", d)
	}
	q.Bucket = 0
	if err := q.Validate(); err == nil {
		t.Error("a change without buckets is valid")
	}
}
