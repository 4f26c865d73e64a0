package questdb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// genILP writes a small data set of useCase as ILP into dir and returns
// the file name and its row count (the runs load it under a table prefix
// of their own, so that concurrent test runs do not share tables).
func genILP(t *testing.T, dir, useCase string, scale int, span time.Duration) (string, int64) {
	return gentest.GenFile(t, dir, useCase+".ilp", useCase, format.ILP, scale, span)
}

// TestEndToEnd loads generated use cases through the shared runner over
// both transports with several batch sizes and worker counts, under a
// table prefix of the test's own (runner.Config.TablePrefix: the tables
// keep the use cases' DDL); the runner's verification (exact count per
// table after WAL apply) must pass.
func TestEndToEnd(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	type input struct {
		file string
		rows int64
	}
	inputs := map[string]input{}
	prefix := uniqueName(t, "e2e") + "_"
	for _, uc := range []string{"cpu-only", "devops", "iot"} {
		f, n := genILP(t, dir, uc, 8, 2*time.Hour)
		inputs[uc] = input{f, n}
	}
	for _, tc := range []struct {
		useCase   string
		transport Transport
		batch     int
		workers   int
		pg        bool
	}{
		{"cpu-only", HTTP, 1000, 2, true},
		{"cpu-only", TCP, 5000, 1, false},
		{"devops", HTTP, 777, 3, false},
		{"devops", TCP, 2000, 2, true},
		{"iot", HTTP, 5000, 2, true},
		{"iot", TCP, 500, 2, true},
	} {
		name := tc.useCase + "/" + string(tc.transport) + "/batch=" + itoa(int64(tc.batch)) + "/workers=" + itoa(int64(tc.workers))
		t.Run(name, func(t *testing.T) {
			in := inputs[tc.useCase]
			cfg := Config{Transport: tc.transport, URL: s.http, TCPAddr: s.tcp, Dedup: tc.transport == HTTP, WALTimeout: time.Minute}
			if tc.pg {
				cfg.PG = s.pg
			}
			tg, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			var stderr bytes.Buffer
			res, err := runner.Run(context.Background(), runner.Config{
				Inputs: []string{in.file}, BatchSize: tc.batch, Workers: tc.workers,
				DoLoad: true, Verify: true, ReportingPeriod: time.Minute, RetryTimeout: 30 * time.Second,
				Prepare: load.PrepareOptions{CreateDB: true, DropDB: true}, TablePrefix: prefix,
				Stderr: &stderr, Loader: "load_questdb", Target: "questdb",
			}, tg)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if res.Status != results.StatusOK || res.Rows != in.rows || res.Verify == nil || !res.Verify.OK {
				t.Fatalf("status %s rows %d (want %d) verify %+v\n%s", res.Status, res.Rows, in.rows, res.Verify, stderr.String())
			}
			var sum int64
			for name, n := range res.Verify.Actual {
				if !strings.HasPrefix(name, prefix) {
					t.Errorf("table %q counted", name)
				}
				sum += n
			}
			if sum != in.rows {
				t.Fatalf("database holds %d rows, want %d", sum, in.rows)
			}
		})
	}
}

// TestEndToEndBadLine corrupts one line in the middle of a generated file:
// the run fails naming that input line; the refused batch is rolled back
// whole, and the database holds exactly the rows the results count as
// loaded (the batches acknowledged before the run stopped).
func TestEndToEndBadLine(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	prefix := uniqueName(t, "bad") + "_"
	good, _ := genILP(t, dir, "cpu-only", 10, 2*time.Hour)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(raw, []byte{'\n'})
	const badLine = 4321
	lines[badLine-1] = bytes.Replace(lines[badLine-1], []byte("usage_user="), []byte("usage_user=oops,x="), 1)
	file := filepath.Join(dir, "bad.ilp")
	if err := os.WriteFile(file, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := New(Config{URL: s.http, PG: s.pg, Dedup: true, WALTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: 1000, Workers: 1, DoLoad: true, Verify: true,
		ReportingPeriod: time.Minute, RetryTimeout: 10 * time.Second,
		Prepare: load.PrepareOptions{CreateDB: true, DropDB: true}, TablePrefix: prefix,
		Stderr: &stderr,
	}, tg)
	if err == nil || !strings.Contains(err.Error(), "input line 4321:") || !strings.Contains(err.Error(), "HTTP 400") {
		t.Fatalf("run error %v, want HTTP 400 naming bad.ilp line 4321", err)
	}
	t.Logf("run error: %v", err)
	if res.Status != results.StatusFailed || res.Rows != 4000 {
		t.Fatalf("status %s rows %d, want failed with the 4000 rows before the bad batch", res.Status, res.Rows)
	}
	counts, err := tg.Count(context.Background(), []string{prefix + "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if counts[prefix+"cpu"] != res.Rows {
		t.Fatalf("database holds %d rows, results say %d loaded", counts[prefix+"cpu"], res.Rows)
	}
}

// TestTCPVerifyEndsWhenRowsArrive: over ILP/TCP, verification ends as soon
// as the rows sent are counted with the WAL applied: Settle (how long to
// wait for rows that have not arrived) is an hour here, and the test's
// deadline a minute.
func TestTCPVerifyEndsWhenRowsArrive(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	prefix := uniqueName(t, "tcpwait") + "_"
	file, rows := genILP(t, dir, "cpu-only", 8, 2*time.Hour)
	tg, err := New(Config{Transport: TCP, URL: s.http, TCPAddr: s.tcp, PG: s.pg, WALTimeout: time.Minute, Settle: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	res, err := runner.Run(ctx, runner.Config{
		Inputs: []string{file}, BatchSize: 1000, Workers: 2, DoLoad: true, Verify: true,
		ReportingPeriod: time.Minute, Prepare: load.PrepareOptions{CreateDB: true}, TablePrefix: prefix,
		Stderr: &stderr, Loader: "load_questdb", Target: "questdb",
	}, tg)
	if err != nil || res.Rows != rows || !res.Verify.OK {
		t.Fatalf("%v: rows %d of %d, verify %+v\n%s", err, res.Rows, rows, res.Verify, stderr.String())
	}
	t.Logf("verified %d rows in %.2fs", rows, res.Verify.Seconds)
}
