package query

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var tsbsNames = map[string][]string{
	"devops": {"single-groupby-1-1-1", "single-groupby-1-1-12", "single-groupby-1-8-1", "single-groupby-5-1-1",
		"single-groupby-5-1-12", "single-groupby-5-8-1", "cpu-max-all-1", "cpu-max-all-8", "cpu-max-all-32-24",
		"double-groupby-1", "double-groupby-5", "double-groupby-all", "groupby-orderby-limit", "high-cpu-1", "high-cpu-all", "lastpoint"},
	"iot": {"last-loc", "single-last-loc", "low-fuel", "high-load", "stationary-trucks", "long-driving-sessions", "long-daily-sessions",
		"avg-vs-projected-fuel-consumption", "avg-daily-driving-duration", "avg-daily-driving-session", "avg-load", "daily-activity", "breakdown-frequency"},
}

func TestTSBSKinds(t *testing.T) {
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	for uc, want := range tsbsNames {
		var got []string
		for _, k := range TSBSKinds(uc) {
			got = append(got, k.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", uc, got, want)
		}
	}
	for _, tc := range []struct {
		uc    string
		scale int
		end   time.Duration
	}{{"devops", 100, 3 * 24 * time.Hour}, {"cpu-only", 4, 30 * time.Minute}, {"iot", 10, 48 * time.Hour}} {
		d := &Dataset{UseCase: tc.uc, Scale: tc.scale, TablePrefix: "p_"}
		end := start.Add(tc.end)
		for _, k := range TSBSKinds(tc.uc) {
			for seq := range uint64(20) {
				q := k.Draw(d, seq, start, end)
				if err := q.Validate(); err != nil {
					t.Fatalf("%s: %v", k.Name, err)
				}
				if q.Name != k.Name || !strings.HasPrefix(q.Table, "p_") || q.Start.Before(start) || q.End.After(end) {
					t.Errorf("%s: %s", k.Name, q)
				}
				if k.Span > 0 && !k.upTo && q.End.Sub(q.Start) != min(k.Span, end.Sub(start)) {
					t.Errorf("%s: window %s, want %s", k.Name, q.End.Sub(q.Start), k.Span)
				}
				if q2 := k.Draw(d, seq, start, end); q2.String() != q.String() {
					t.Errorf("%s: not deterministic: %s, then %s", k.Name, q, q2)
				}
				for _, m := range q.Where {
					if len(m.Values) > tc.scale || len(slices.Compact(slices.Sorted(slices.Values(m.Values)))) != len(m.Values) {
						t.Errorf("%s: %s: not a subset of distinct values", k.Name, q)
					}
				}
			}
		}
	}
	if TSBSKinds("weather") != nil {
		t.Error("weather has no queries")
	}
}

// TestEvalSet checks that one pass answers every query as Eval does, over
// two tables given interleaved.
func TestEvalSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pts []TablePoint
	for i := range 2000 {
		table := []string{"cpu", "other"}[i%2]
		pts = append(pts, TablePoint{Table: table, Point: Point{Time: t0.Add(time.Duration(r.IntN(7200)) * time.Second),
			Tags:   map[string]string{"hostname": fmt.Sprintf("host_%d", r.IntN(4))},
			Fields: map[string]float64{"usage_user": r.Float64() * 100, "usage_system": r.Float64() * 100}}})
	}
	d := &Dataset{UseCase: "cpu-only", Scale: 4}
	var qs []*Query
	for i, k := range TSBSKinds("cpu-only") {
		qs = append(qs, k.Draw(d, uint64(i), t0, t0.Add(2*time.Hour)))
	}
	other := *qs[0]
	other.Table = "other"
	qs = append(qs, &other)
	got := EvalSet(qs, slices.Values(pts))
	for i, q := range qs {
		var mine iter.Seq[Point] = func(yield func(Point) bool) {
			for _, p := range pts {
				if p.Table == q.Table && !yield(p.Point) {
					return
				}
			}
		}
		want := Eval(q, mine)
		if d := Diff(want, got[i], 0); d != "" {
			t.Errorf("%s: %s", q, d)
		}
		if len(want.Rows) == 0 && q.Name != "high-cpu-1" {
			t.Errorf("%s: no rows: the test checks nothing", q)
		}
	}
}

// The benchmark's query of one type, drawn from a sequence number: the
// same number over the same dataset gives the same query.
func ExampleKind_Draw() {
	d := &Dataset{UseCase: "devops", Scale: 100}
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, k := range TSBSKinds("devops")[:2] {
		fmt.Println(k.Draw(d, 1, start, start.Add(24*time.Hour)))
	}
	// Output:
	// single-groupby-1-1-1: max(usage_user) from cpu [2016-01-01T18:47:25Z, 2016-01-01T19:47:25Z) hostname in (host_97) every 1m0s
	// single-groupby-1-1-12: max(usage_user) from cpu [2016-01-01T09:48:13Z, 2016-01-01T21:48:13Z) hostname in (host_97) every 1m0s
}
