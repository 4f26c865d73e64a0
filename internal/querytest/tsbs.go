package querytest

import (
	"bytes"
	"context"
	"errors"
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
				if q := set.Queries[i]; len(a.Rows) == 0 && q.Name != "high-cpu-1" && !slices.Contains(s.Unsupported, q.Name) {
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
