package querytest

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/querybench"
)

// RunTSBS loads each use case's file into tables starting with prefix,
// draws a query set of TSBS's catalogue over it (querybench.Generate, two
// queries of every type) and runs it through querybench.Run with every
// answer checked against the evaluator over the file. A type the target
// names in s.Unsupported must be declared unsupported (errors.ErrUnsupported),
// every other type answered right. Then, for cpu-only, the set is checked
// against a copy of the file whose newest row has another usage_user (a
// row changed behind the loader's back): the run must fail, naming
// its query and the first differing row (lastpoint's answer at least
// differs).
func (s Suite) RunTSBS(t *testing.T, prefix string) {
	for _, uc := range []string{"cpu-only", "iot"} {
		t.Run("tsbs-"+uc, func(t *testing.T) {
			p := prefix + "_" + strings.ReplaceAll(uc, "-", "") + "_"
			path, rows := Generate(t, uc)
			tg, prep := s.New(t, hostOf(s.Upstream), 30*time.Second)
			defer tg.Close()
			if tg.Hooks().NewQuerier == nil {
				t.Fatalf("%s declares no NewQuerier", s.Loader)
			}
			loadFile(t, tg, s.Loader, prep, path, p, 1000, rows)
			scale := 4
			if uc == "iot" {
				scale = 6
			}
			set, err := querybench.Generate(querybench.GenConfig{UseCase: uc, Seed: 1, Scale: scale, Start: start, End: start.Add(2 * time.Hour),
				TablePrefix: p, PerType: 2})
			if err != nil {
				t.Fatal(err)
			}
			points, err := Points(path, p)
			if err != nil {
				t.Fatal(err)
			}
			tuned := 0
			for _, q := range set.Queries[:len(set.Queries)] {
				if q.Staged() {
					set.Queries = append(set.Queries, tune(q, points[q.Table]))
					tuned++
				}
			}
			want, err := querybench.Expect(path, p, time.Nanosecond, set.Queries)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			res, err := querybench.Run(context.Background(), querybench.Config{Set: set, NewQuerier: tg.Hooks().NewQuerier,
				Workers: 2, Warmup: 1, Expected: want, Log: &log})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			for _, qt := range res.Types {
				unsup := slices.Contains(s.Unsupported, qt.Name)
				switch {
				case unsup && (qt.Unsupported == 0 || qt.Count > 0):
					t.Errorf("%s: declared unsupported, but answered %d of its queries", qt.Name, qt.Count)
				case !unsup && (qt.Unsupported > 0 || qt.Count == 0):
					t.Errorf("%s: %d answered, %d unsupported", qt.Name, qt.Count, qt.Unsupported)
				}
			}
			for i, a := range want {
				// TSBS's thresholds find nothing in a small file: the tuned
				// copies of those queries have rows.
				q := set.Queries[i]
				if q.Staged() && i < len(set.Queries)-tuned {
					continue
				}
				if len(a.Rows) == 0 && q.Name != "high-cpu-1" && !slices.Contains(s.Unsupported, q.Name) {
					t.Errorf("%s has no rows: the check checks nothing", q)
				}
			}
			t.Logf("%s", log.String())
			if uc != "cpu-only" || slices.Contains(s.Unsupported, "lastpoint") {
				return
			}
			changed := changeNewest(t, path, "cpu", "usage_user")
			want, err = querybench.Expect(changed, p, time.Nanosecond, set.Queries)
			if err != nil {
				t.Fatal(err)
			}
			_, err = querybench.Run(context.Background(), querybench.Config{Set: set, NewQuerier: tg.Hooks().NewQuerier, Workers: 1, Expected: want})
			if !errors.Is(err, querybench.ErrWrong) || !strings.Contains(err.Error(), "want {") ||
				!slices.ContainsFunc(set.Queries, func(q *query.Query) bool { return strings.Contains(err.Error(), "("+q.Name+": ") }) {
				t.Errorf("a row changed behind the loader's back: %v, want a wrong answer naming its query and row", err)
			}
		})
	}
}

// tune is a copy of q whose thresholds on aggregated rows (its Having,
// its Change's, its Rollups') are the median of the values they compare over points,
// so that its answer has rows (TSBS's thresholds are for days of data).
func tune(q *query.Query, points []query.Point) *query.Query {
	c := *q
	c.Rollups = slices.Clone(q.Rollups)
	cols := q.Fields
	if q.Change != nil {
		// The Change's threshold amid the values of the buckets it follows.
		probe := *q
		probe.Change, probe.Rollups = nil, nil
		var vs []float64
		for _, r := range query.Eval(&probe, slices.Values(points)).Rows {
			vs = append(vs, r.Values[slices.Index(cols, q.Change.Field)])
		}
		ch := *q.Change
		ch.Value = split(vs, false)
		c.Change = &ch
	}
	for stage := 0; stage <= len(c.Rollups); stage++ {
		h := c.Having
		if stage > 0 {
			h = c.Rollups[stage-1].Having
			if stage == 1 && c.Change != nil {
				cols = []string{c.Change.Column()}
			}
			if c.Rollups[stage-1].Agg == query.Count {
				cols = []string{"count"}
			}
		}
		if h == nil {
			continue
		}
		probe := c
		probe.Rollups = c.Rollups[:stage]
		if stage == 0 {
			probe.Having, probe.Change = nil, nil
		} else {
			probe.Rollups = slices.Clone(probe.Rollups)
			probe.Rollups[stage-1].Having = nil
		}
		var vs []float64
		for _, r := range query.Eval(&probe, slices.Values(points)).Rows {
			v := r.Values[slices.Index(cols, h.Field)]
			if h.Over != "" {
				v /= r.Values[slices.Index(cols, h.Over)]
			}
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				vs = append(vs, v)
			}
		}
		tuned := *h
		tuned.Value = split(vs, h.Below)

		if stage == 0 {
			c.Having = &tuned
		} else {
			c.Rollups[stage-1].Having = &tuned
		}
	}
	return &c
}

// split is a threshold amid vs, away from every value (a mean summed in
// another order differs in its last bits, so a value equal to the
// threshold could fall on either side): the midpoint of the two distinct
// values nearest the median, or past them all (on the side that keeps
// them) when all are equal.
func split(vs []float64, below bool) float64 {
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	apart := func(a, b float64) bool { return b-a > 1e-6*math.Max(math.Abs(a), math.Abs(b)) }
	for d := 0; d < len(vs); d++ {
		for _, m := range []int{len(vs)/2 + d, len(vs)/2 - d} {
			if m > 0 && m < len(vs) && apart(vs[m-1], vs[m]) {
				return (vs[m-1] + vs[m]) / 2
			}
		}
	}
	if below {
		return vs[len(vs)-1] + 1
	}
	return vs[0] - 1
}

// changeNewest writes a copy of the line-protocol file path whose newest
// line of measurement m has field f increased by 1000.
func changeNewest(t *testing.T, path, m, f string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	best, bestTS := -1, int64(-1)
	for i, l := range lines {
		if !strings.HasPrefix(l, m+",") {
			continue
		}
		sp := strings.LastIndexByte(strings.TrimSpace(l), ' ')
		ts, err := strconv.ParseInt(strings.TrimSpace(l)[sp+1:], 10, 64)
		if err == nil && ts > bestTS && (strings.Contains(l, " "+f+"=") || strings.Contains(l, ","+f+"=")) {
			best, bestTS = i, ts
		}
	}
	if best < 0 {
		t.Fatalf("%s: no %s line with %s", path, m, f)
	}
	l := lines[best]
	at := strings.Index(l, f+"=") + len(f) + 1
	end := at + strings.IndexAny(l[at:], ", ")
	v, err := strconv.ParseFloat(strings.TrimSuffix(l[at:end], "i"), 64)
	if err != nil {
		t.Fatalf("%s: line %d: %v", path, best+1, err)
	}
	lines[best] = l[:at] + strconv.FormatFloat(v+1000, 'f', -1, 64) + l[end:]
	out := filepath.Join(t.TempDir(), "changed.ilp")
	if err := os.WriteFile(out, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// Staged are the catalogue's types with a threshold on aggregated rows or
// a second aggregation (query.Query.Staged), for a target that declares
// them unsupported.
var Staged = append([]string{"low-fuel", "high-load", "stationary-trucks", "long-driving-sessions", "long-daily-sessions",
	"avg-daily-driving-duration", "avg-load", "daily-activity"}, Changes...)

// Changes are the catalogue's types that follow a group's buckets one to
// the next (query.Change), for a target that declares them unsupported.
var Changes = []string{"avg-daily-driving-session", "breakdown-frequency"}
