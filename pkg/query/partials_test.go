package query

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// rollupPoints are scale hosts in two fleets, a row every 10 s over span
// from t0, with random values (some rows lack a field; some are
// repeated), in a shuffled order within a minute of their time (as
// batches acknowledged out of order bring them).
func rollupPoints(scale int, span time.Duration, seed uint64) []Point {
	r := rand.New(rand.NewPCG(seed, 1))
	var ps []Point
	for t := time.Duration(0); t < span; t += 10 * time.Second {
		for h := range scale {
			p := Point{Time: t0.Add(t), Tags: map[string]string{"hostname": fmt.Sprintf("host_%d", h), "fleet": []string{"East", "West"}[h%2]},
				Fields: map[string]float64{}}
			for _, f := range cpuFields {
				if r.IntN(20) > 0 {
					p.Fields[f] = float64(r.IntN(1000)) / 10
				}
			}
			ps = append(ps, p)
		}
	}
	for i := 0; i+1 < len(ps); i += 1 + r.IntN(3) {
		j := min(len(ps)-1, i+r.IntN(6*scale))
		ps[i], ps[j] = ps[j], ps[i]
	}
	return ps
}

// TestPartials: for every query type of the catalogue (and Min, Count and
// a limit of rows), over windows of whole minutes, a Partials's answer is
// Eval's, before and after Forget, and a window it cannot answer is
// refused.
func TestPartials(t *testing.T) {
	ps := rollupPoints(7, 3*time.Hour, 1)
	d := &Dataset{UseCase: "cpu-only", Scale: 7}
	var shapes []func(seq uint64, s, e time.Time) *Query
	for _, k := range Kinds("cpu-only") {
		shapes = append(shapes, func(seq uint64, s, e time.Time) *Query { return k.Build(d, seq, s, e) })
	}
	extra := []Query{
		{Name: "min", Table: "cpu", Fields: cpuFields[:2], Agg: Min, GroupBy: []string{"fleet"}, Bucket: 10 * time.Minute},
		{Name: "count", Table: "cpu", Fields: cpuFields, Agg: Count},
		{Name: "rows", Table: "cpu", Fields: cpuFields[:1], Agg: Rows, Where: []Match{{Tag: "fleet", Values: []string{"West"}}}, Filter: &Threshold{Field: "usage_user", Value: 2, Below: true}, Limit: 3},
		{Name: "last-fleet", Table: "cpu", Fields: cpuFields[:3], Agg: Last, GroupBy: []string{"fleet", "hostname"}, Where: []Match{{Tag: "hostname", Values: []string{"host_1", "host_2"}}}},
	}
	for _, x := range extra {
		shapes = append(shapes, func(seq uint64, s, e time.Time) *Query { q := x; q.Start, q.End = s, e; return &q })
	}
	r := rand.New(rand.NewPCG(2, 3))
	for _, shape := range shapes {
		sample := shape(0, t0, t0.Add(time.Hour))
		t.Run(sample.Name, func(t *testing.T) {
			ru, err := NewPartials(sample, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				if p.Fields["usage_user"] > 99 {
					ru.Add(p) // a row again (a re-sent batch): Eval reads it twice too
				}
				ru.Add(p)
			}
			all := slices.Clone(ps)
			for _, p := range ps {
				if p.Fields["usage_user"] > 99 {
					all = append(all, p)
				}
			}
			check := func(forgot time.Time) {
				for seq := uint64(1); seq < 40; seq++ {
					e := t0.Add(time.Duration(1+r.IntN(180)) * time.Minute)
					s := e.Add(-time.Duration(1+r.IntN(180)) * time.Minute)
					if s.Before(forgot) {
						s = forgot
					}
					if !s.Before(e) {
						continue
					}
					q := shape(seq, s, e)
					q.Start = s
					want := Eval(q, slices.Values(all))
					got, ok := ru.Answer(q)
					if !ok {
						t.Fatalf("%s: refused", q)
					}
					if diff := Diff(want, got, 1e-12); diff != "" {
						t.Fatalf("%s: %s", q, diff)
					}
				}
			}
			check(t0)
			ru.Forget(t0.Add(90 * time.Minute))
			check(t0.Add(90 * time.Minute))
			q := shape(1, t0.Add(89*time.Minute), t0.Add(100*time.Minute))
			q.Start = t0.Add(89 * time.Minute)
			if _, ok := ru.Answer(q); ok {
				t.Error("a window before what was forgotten answered")
			}
			q.Start = t0.Add(90*time.Minute + time.Second)
			if _, ok := ru.Answer(q); ok {
				t.Error("a window not of whole grains answered")
			}
			other := *q
			other.Fields = []string{"x"}
			other.Start = t0.Add(90 * time.Minute)
			if _, ok := ru.Answer(&other); ok {
				t.Error("a query of another shape answered")
			}
		})
	}
}

func TestPartialsBucketGrain(t *testing.T) {
	if _, err := NewPartials(&Query{Name: "b", Bucket: 90 * time.Second}, time.Minute); err == nil {
		t.Error("a bucket that is not whole grains was taken")
	}
}

// BenchmarkPartials: reading rows into a rollup of each cpu-only query type,
// and answering its widest window (scale 100, 12 h).
func BenchmarkPartials(b *testing.B) {
	ps := rollupPoints(100, 12*time.Hour, 1)
	d := &Dataset{UseCase: "cpu-only", Scale: 100}
	for _, k := range Kinds("cpu-only") {
		q := k.Build(d, 1, t0, t0.Add(12*time.Hour))
		b.Run("add/"+k.Name, func(b *testing.B) {
			ru, _ := NewPartials(q, time.Minute)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				ru.Add(ps[i%len(ps)])
			}
		})
		b.Run("answer/"+k.Name, func(b *testing.B) {
			ru, _ := NewPartials(q, time.Minute)
			for _, p := range ps {
				ru.Add(p)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := ru.Answer(q); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
