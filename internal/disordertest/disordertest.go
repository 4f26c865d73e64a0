// Package disordertest loads generate_data's out-of-order, late and
// repeated files into a real database through the shared runner and checks
// that the load verifies (by count and by content) and what the database
// keeps of a repeated (series, time) key. Every target's test calls Run.
package disordertest

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/usecase"
)

// Case is one generated file.
type Case struct {
	Name     string
	Disorder gen.Disorder
}

// Cases are the files Run loads: cpu-only, 3 hosts, 2 h at 10 s (2,160
// rows before repeats).
var Cases = []Case{
	{"out-of-order", gen.Disorder{OutOfOrder: 0.3, OutOfOrderWindow: time.Hour, Late: 0.1, LateBy: 30 * time.Minute}},
	{"repeat", gen.Disorder{Repeat: 0.05}},
	{"repeat-changes", gen.Disorder{Repeat: 0.05, RepeatChanges: true}},
}

// File is a generated file: its path, its rows and its distinct (series,
// time) keys.
type File struct {
	Path       string
	Rows, Keys int64
}

// Generate writes c's file (ILP, seed 42) as a new file in dir (named
// after the case) and reads it back for its keys, a line at a time.
func Generate(t testing.TB, dir string, c Case) File {
	t.Helper()
	out, err := os.CreateTemp(dir, c.Name+"-*.ilp")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: usecase.CPUOnly, Format: format.ILP, Seed: 42, Scale: 3,
		Start: gen.DefaultStart, End: gen.DefaultStart.Add(2 * time.Hour), Workers: 1,
		Disorder: c.Disorder, Stdout: out, Stderr: io.Discard,
	})
	if err == nil {
		_, err = out.Seek(0, io.SeekStart)
	}
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		// the series (up to the first space) and the time (after the last)
		line := lines.Text()
		keys[line[:strings.IndexByte(line, ' ')]+line[strings.LastIndexByte(line, ' '):]] = true
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return File{Path: out.Name(), Rows: st.Rows, Keys: int64(len(keys))}
}

// Setup returns a target on a fresh database (or table prefix) and the
// runner configuration of a load into it: Prepare, Loader, Target, and
// what else the target needs. Inputs, DoLoad, Verify, VerifyContent,
// Stderr and ResultsFile are Run's.
type Setup func(t *testing.T) (load.Target, runner.Config)

// Run loads each of Cases with --verify count and with --verify content
// (by count, as the runner falls back, on a target that cannot compute
// content fingerprints), each into a fresh database from setup: the load must succeed, verified,
// with every row of the file loaded, and the database must hold every row
// (keepsRepeats: an appending database) or one row per (series, time) key
// (an overwriting one).
func Run(t *testing.T, setup Setup, keepsRepeats bool) {
	dir := t.TempDir()
	for _, c := range Cases {
		f := Generate(t, dir, c)
		if strings.HasPrefix(c.Name, "repeat") && f.Keys == f.Rows {
			t.Fatalf("%s: no key repeated", c.Name)
		}
		for _, mode := range []string{"count", "content"} {
			t.Run(c.Name+"/"+mode, func(t *testing.T) {
				tg, rc := setup(t)
				rc.Inputs, rc.DoLoad, rc.Verify, rc.VerifyContent = []string{f.Path}, true, true, mode == "content"
				if rc.ReportingPeriod == 0 {
					rc.ReportingPeriod = time.Hour
				}
				if rc.RetryTimeout == 0 {
					rc.RetryTimeout = 30 * time.Second
				}
				r := loadtest.RunLoad(t, rc, tg)
				r.Exact(t, f.Rows)
				res := r.Res
				if mode == "content" && res.Verify.Mode == "count" && strings.Contains(res.Verify.Note, "cannot compute content fingerprints") {
					t.Logf("verified by count: %s", res.Verify.Note) // the runner's fallback (docs/verify.md)
				} else if res.Verify.Mode != mode {
					t.Fatalf("verified by %s, want %s", res.Verify.Mode, mode)
				}
				var held int64
				for _, n := range res.Verify.Actual {
					held += n
				}
				want := f.Keys
				if keepsRepeats {
					want = f.Rows
				}
				if held != want {
					t.Fatalf("the database holds %d rows, want %d (%d rows, %d keys)\n%s", held, want, f.Rows, f.Keys, r.Log)
				}
			})
		}
	}
}

// Suite is Run on the targets of a conformance suite: each load into a
// fresh target of s on its server (TargetSuite.Target), in 500-row batches
// by two writers.
func Suite(t *testing.T, s loadtest.TargetSuite, keepsRepeats bool) {
	Run(t, func(t *testing.T) (load.Target, runner.Config) {
		tg, prep := s.Target(t)
		return tg, runner.Config{BatchSize: 500, Workers: 2, Prepare: prep,
			Loader: s.Loader, Target: strings.TrimPrefix(s.Loader, "load_")}
	}, keepsRepeats)
}
