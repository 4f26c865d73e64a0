package influx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/query"
)

// TestChangeV1 checks InfluxQL's Change (rises, hours of runs) on the real InfluxDB 1.x
// against query.Eval over 10-minute buckets that TSBS's files seldom
// have: a bucket with rows but no value of the Change's field (off), a
// bucket without rows (not a row: the rows before and after it are
// neighbours), a negative threshold, a Having before the Change, a Count,
// a window that does not start at a bucket's start, runs across midnight,
// cut by the window at either end. A Change of several fields or of runs
// under a Rollup by fewer tags is declared unsupported.
func TestChangeV1(t *testing.T) {
	// The window crosses midnight: a run is the row of the day it starts.
	t0 := time.Date(2016, 1, 3, 23, 0, 0, 0, time.UTC)
	// Each bucket's mean of a: a number, B (rows with b only) or - (no rows).
	buckets := map[string]string{
		"x": "0.5 2 B 3 - 0.2 4 4 B B 1.5 0.1",
		"y": "3 - 0.5 2 2 B 6 0.5 - - 2 1",
		"z": "-1 2 B -2 3 1 - B 5 -0.5 2 0",
		"w": "- - 2 0.5 3 3 - 0 2 B 2 2",
	}
	kind := map[string]string{"x": "k1", "y": "k1", "z": "k2", "w": "k2"}
	var b strings.Builder
	rows := 0
	for _, g := range []string{"x", "y", "z", "w"} {
		for i, v := range strings.Fields(buckets[g]) {
			at := t0.Add(time.Duration(i) * 10 * time.Minute)
			for j, d := range []float64{-0.25, 0.25} {
				field := fmt.Sprintf("b=%g", float64(i%3)+0.5+float64(j))
				switch v {
				case "-":
					continue
				case "B":
				default:
					var a float64
					fmt.Sscan(v, &a)
					field = fmt.Sprintf("a=%g,", a+d) + field
				}
				fmt.Fprintf(&b, "m,k=%s,g=%s %s %d\n", kind[g], g, field, at.Add(time.Duration(1+5*j)*time.Minute).UnixNano())
				rows++
			}
		}
	}
	path := filepath.Join(t.TempDir(), "change.ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	points, err := querytest.Points(path, "")
	if err != nil {
		t.Fatal(err)
	}
	tg := newTarget(t, influxURL(t), Config{})
	w, err := tg.NewWriter(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if ack, err := w.Write(context.Background(), batch(b.String(), 1)); err != nil || ack.Rows != rows {
		t.Fatalf("write: %d rows acknowledged of %d, %v", ack.Rows, rows, err)
	}

	q := func(name string, fields []string, agg query.Agg, h *query.Having, c query.Change, rollups ...query.Rollup) *query.Query {
		return &query.Query{Name: name, Table: "m", Start: t0, End: t0.Add(2 * time.Hour), Fields: fields, Agg: agg, GroupBy: []string{"k", "g"},
			Bucket: 10 * time.Minute, Having: h, Change: &c, Rollups: rollups}
	}
	rises := query.Change{Field: "a", Value: 1}
	hours := query.Change{Field: "a", Value: 1, Runs: true}
	count := query.Rollup{Agg: query.Count, GroupBy: []string{"k"}}
	unaligned := q("rises-unaligned", []string{"a"}, query.Avg, nil, rises)
	unaligned.Start, unaligned.End = t0.Add(5*time.Minute), t0.Add(115*time.Minute)
	runsUnaligned := q("runs-unaligned", []string{"a"}, query.Avg, nil, hours)
	runsUnaligned.Start, runsUnaligned.End = unaligned.Start, unaligned.End
	sum := query.Rollup{Agg: query.Count, GroupBy: []string{"g", "k"}, Bucket: time.Hour}
	qs := []*query.Query{
		q("rises-nulls", []string{"a", "b"}, query.Avg, nil, rises),
		q("rises-nulls-count", []string{"b", "a"}, query.Avg, nil, rises, sum),
		q("rises-one-field", []string{"a"}, query.Max, nil, rises, count),
		q("rises-negative", []string{"a"}, query.Avg, nil, query.Change{Field: "a", Value: -0.75}),
		// A bucket with b only is off, though fill(0)'s 0 is above the threshold.
		q("rises-nulls-negative", []string{"a", "b"}, query.Avg, nil, query.Change{Field: "a", Value: -0.75}),
		q("rises-having", []string{"a", "b"}, query.Avg, &query.Having{Field: "b", Value: 1}, rises),
		q("rises-having-one-field", []string{"a"}, query.Min, &query.Having{Field: "a", Value: 0.3}, rises, count),
		q("rises-ratio", []string{"a", "b"}, query.Avg, &query.Having{Field: "a", Over: "b", Value: 0.1}, rises),
		q("rises-of-count", []string{"a", "b"}, query.Count, nil, rises),
		unaligned,
		// Regrouped, several fields: fill(0) is wrong under it.
		q("rises-nulls-regrouped", []string{"a", "b"}, query.Avg, nil, rises, count),
		q("runs", []string{"a"}, query.Avg, nil, hours, query.Rollup{Agg: query.Avg, GroupBy: []string{"g", "k"}, Bucket: 24 * time.Hour}),
		q("runs-each", []string{"a"}, query.Max, nil, hours),
		runsUnaligned,
		q("runs-nulls", []string{"b", "a"}, query.Avg, nil, hours),
		q("runs-having", []string{"a", "b"}, query.Avg, &query.Having{Field: "b", Value: 1}, hours),
		q("runs-negative", []string{"a"}, query.Avg, nil, query.Change{Field: "a", Value: -0.75, Runs: true}),
		// Regrouped, runs fill: refused.
		q("runs-regrouped", []string{"a"}, query.Avg, nil, hours, query.Rollup{Agg: query.Avg, GroupBy: []string{"k"}, Bucket: 24 * time.Hour}),
	}
	qr, err := tg.Hooks().NewQuerier(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer qr.Close()
	for _, problem := range querytest.Check(context.Background(), qr, qs, points, []string{"rises-nulls-regrouped", "runs-regrouped"}) {
		t.Error(problem)
	}
}
