// Package querytest checks a target's Querier (load.Hooks.NewQuerier)
// against query.Eval: it loads a small generated cpu-only file and a small
// iot file (NULL fields, NULL tags, rows out of time order) through the
// runner into the target's real server, then asks the target a set of
// queries (Queries, then More) that together use every part of a query.Query (each Agg, tag
// matches with one and several values, thresholds above and below, groups,
// buckets, newest-N) and compares each answer with the reference answer
// over the rows the file holds.
//
// A target's test calls Suite.Run once; a query the target cannot state
// in its dialect is named in Suite.Unsupported, and the suite checks that
// the target says so (errors.ErrUnsupported) rather than answering.
package querytest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/lppoints"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// Tolerance is the relative difference allowed between two values (an
// average summed in another order differs in its last bits).
const Tolerance = 1e-9

// Suite is the query check of one target.
type Suite struct {
	Loader   string           // the command's name, e.g. "load_questdb"
	Upstream string           // the server's address, given to New
	New      loadtest.NewFunc // a new target on the server
	// Unsupported names the queries (Query.Name) the target declares it
	// cannot state: each must fail with errors.ErrUnsupported.
	Unsupported []string
}

// start is the first row's time of the suite's data: a Monday, so that no
// bucket is cut by the window.
var start = time.Date(2016, 1, 4, 0, 0, 0, 0, time.UTC)

// Run loads each use case's file into tables starting with prefix and
// checks the target's answers, as subtests.
func (s Suite) Run(t *testing.T, prefix string) {
	for _, uc := range []string{"cpu-only", "iot"} {
		t.Run(uc, func(t *testing.T) {
			p := prefix + "_" + strings.ReplaceAll(uc, "-", "") + "_"
			path, rows := Generate(t, uc)
			tg, prep := s.New(t, hostOf(s.Upstream), 30*time.Second)
			defer tg.Close()
			if tg.Hooks().NewQuerier == nil {
				t.Fatalf("%s declares no NewQuerier", s.Loader)
			}
			points := loadFile(t, tg, s.Loader, prep, path, p, 1000, rows)
			ask(t, tg, append(Queries(uc, p, points), More(uc, p, points)...), points, s.Unsupported)
		})
	}
}

// loadFile loads the line-protocol file path (rows rows) through tg in
// batches of batch rows, its tables named with prefix in front, and
// returns the file's points as the tables hold them.
func loadFile(t *testing.T, tg load.Target, loader string, prep load.PrepareOptions, path, prefix string, batch int, rows int64) map[string][]query.Point {
	t.Helper()
	cfg := loadtest.FaultConfig(path, batch, 2)
	cfg.TablePrefix = prefix
	cfg.Prepare = prep
	cfg.Loader, cfg.Target = loader, strings.TrimPrefix(loader, "load_")
	if r := loadtest.RunLoad(t, cfg, tg); r.Err != nil {
		t.Fatalf("load of %d rows: %v\n%s", rows, r.Err, r.Log)
	}
	points, err := Points(path, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return points
}

// ask asks tg's querier qs and reports each answer that differs from
// query.Eval's over points (unsupported as Check's).
func ask(t *testing.T, tg load.Target, qs []*query.Query, points map[string][]query.Point, unsupported []string) {
	t.Helper()
	qr, err := tg.Hooks().NewQuerier(context.Background(), 0)
	if err != nil {
		t.Fatalf("NewQuerier: %v", err)
	}
	defer qr.Close()
	for _, problem := range Check(context.Background(), qr, qs, points, unsupported) {
		t.Error(problem)
	}
}

func hostOf(addr string) string {
	if _, rest, ok := strings.Cut(addr, "://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		if _, h, ok := strings.Cut(host, "@"); ok {
			host = h // postgres://user:secret@host:port
		}
		return host
	}
	return addr
}

// Generate writes the suite's file of use case uc (line protocol, two
// hours from a Monday at 10 s) and returns its path and rows.
func Generate(t testing.TB, uc string) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), uc+".ilp")
	scale := 4
	if uc == "iot" {
		scale = 6
	}
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: uc, Format: format.ILP, Seed: 38, Scale: scale,
		Start: start, End: start.Add(2 * time.Hour), Interval: 10 * time.Second,
		File: path, Workers: 1,
	})
	if err != nil {
		t.Fatalf("generate %s: %v", uc, err)
	}
	return path, st.Rows
}

// Points reads a line-protocol file into query points per table, the
// table named with prefix in front as the runner loads it.
func Points(path, prefix string) (map[string][]query.Point, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]query.Point{}
	err = lppoints.Each(data, func(table string, p query.Point) bool {
		out[prefix+table] = append(out[prefix+table], p)
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Queries are the suite's queries over the tables of use case uc loaded
// with prefix, with thresholds and tag values taken from points so that
// every query has rows to answer.
func Queries(uc, prefix string, points map[string][]query.Point) []*query.Query {
	end := start.Add(2 * time.Hour)
	whole := func(q *query.Query) *query.Query { q.Start, q.End = start, end; return q }
	if uc == "iot" {
		readings, diag := prefix+"readings", prefix+"diagnostics"
		fleets := tagValues(points[diag], "fleet")
		return []*query.Query{
			whole(&query.Query{Name: "last-loc", Table: readings, Fields: []string{"latitude", "longitude"}, Agg: query.Last, GroupBy: []string{"name"}}),
			whole(&query.Query{Name: "low-fuel", Table: diag, Fields: []string{"fuel_state"}, Agg: query.Rows,
				Where:  []query.Match{{Tag: "fleet", Values: fleets[:1]}},
				Filter: &query.Threshold{Field: "fuel_state", Value: median(points[diag], "fuel_state"), Below: true}}),
			whole(&query.Query{Name: "avg-load", Table: diag, Fields: []string{"current_load"}, Agg: query.Avg, GroupBy: []string{"fleet"}, Bucket: time.Hour}),
			whole(&query.Query{Name: "count-nulls", Table: diag, Fields: []string{"fuel_state", "status"}, Agg: query.Count, GroupBy: []string{"name"}}),
			whole(&query.Query{Name: "max-velocity-by-model", Table: readings, Fields: []string{"velocity"}, Agg: query.Max,
				Where: []query.Match{{Tag: "fleet", Values: fleets}}, GroupBy: []string{"model"}, Bucket: 30 * time.Minute}),
		}
	}
	cpu := prefix + "cpu"
	hosts := tagValues(points[cpu], "hostname")
	goal := start.Add(37*time.Minute + 30*time.Second)
	return []*query.Query{
		{Name: "single-groupby-1-1-1", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Max, Bucket: time.Minute,
			Where: []query.Match{{Tag: "hostname", Values: hosts[:1]}}, Start: start.Add(10 * time.Minute), End: start.Add(70 * time.Minute)},
		whole(&query.Query{Name: "double-groupby-2", Table: cpu, Fields: []string{"usage_user", "usage_system"}, Agg: query.Avg,
			GroupBy: []string{"hostname"}, Bucket: time.Hour}),
		whole(&query.Query{Name: "lastpoint", Table: cpu, Fields: []string{"usage_user", "usage_idle"}, Agg: query.Last, GroupBy: []string{"hostname"}}),
		whole(&query.Query{Name: "high-cpu-1", Table: cpu, Fields: []string{"usage_user", "usage_system"}, Agg: query.Rows,
			Where:  []query.Match{{Tag: "hostname", Values: hosts[1:2]}},
			Filter: &query.Threshold{Field: "usage_user", Value: median(points[cpu], "usage_user")}}),
		{Name: "groupby-orderby-limit", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Max, Bucket: time.Minute, Limit: 5,
			Start: goal.Add(-time.Hour), End: goal},
		whole(&query.Query{Name: "min-by-host-10m", Table: cpu, Fields: []string{"usage_guest"}, Agg: query.Min,
			Where: []query.Match{{Tag: "hostname", Values: hosts[:2]}}, GroupBy: []string{"hostname"}, Bucket: 10 * time.Minute}),
		whole(&query.Query{Name: "count-by-region-30m", Table: cpu, Fields: []string{"usage_nice"}, Agg: query.Count,
			GroupBy: []string{"region"}, Bucket: 30 * time.Minute}),
		whole(&query.Query{Name: "newest-rows-below", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Rows, Limit: 3,
			Where:  []query.Match{{Tag: "hostname", Values: hosts[:1]}},
			Filter: &query.Threshold{Field: "usage_user", Value: median(points[cpu], "usage_user"), Below: true}}),
		whole(&query.Query{Name: "last-per-half-hour", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Last,
			GroupBy: []string{"hostname"}, Bucket: 30 * time.Minute}),
	}
}

// Check asks qr every query and compares its answers with query.Eval's
// over points; it returns the problems found, each naming its query.
func Check(ctx context.Context, qr load.Querier, queries []*query.Query, points map[string][]query.Point, unsupported []string) []string {
	var problems []string
	for _, q := range queries {
		if err := q.Validate(); err != nil {
			problems = append(problems, fmt.Sprintf("the suite's query is invalid: %v", err))
			continue
		}
		want := query.Eval(q, slices.Values(points[q.Table]))
		if len(want.Rows) == 0 {
			problems = append(problems, fmt.Sprintf("%s: the suite's query has no rows to answer (%s)", q.Name, q))
			continue
		}
		got, err := qr.Query(ctx, q)
		switch {
		case slices.Contains(unsupported, q.Name):
			if !errors.Is(err, errors.ErrUnsupported) {
				problems = append(problems, fmt.Sprintf("%s: declared unsupported, but Query returned %v, not errors.ErrUnsupported", q.Name, err))
			}
			continue
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v\n\tquery: %s", q.Name, err, q))
			continue
		}
		got.Sort()
		if d := query.Diff(want, got, Tolerance); d != "" {
			problems = append(problems, fmt.Sprintf("%s: wrong answer: %s\n\tquery: %s", q.Name, d, q))
		}
	}
	return problems
}

// tagValues returns the distinct non-empty values of tag, sorted.
func tagValues(ps []query.Point, tag string) []string {
	seen := map[string]bool{}
	for _, p := range ps {
		if v := p.Tags[tag]; v != "" {
			seen[v] = true
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// median is the median of field's values.
func median(ps []query.Point, field string) float64 {
	var vs []float64
	for _, p := range ps {
		if v, ok := p.Fields[field]; ok && !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}
