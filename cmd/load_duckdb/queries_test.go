//go:build cgo

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/querybench"
	"github.com/tsload/tsload/pkg/results"
)

// TestQueries runs a query set after the load (--queries), against the
// database already loaded (--skip-load), unchecked (--check=false), and
// against a database whose rows differ from --file (a wrong answer fails
// the run, naming the query).
func TestQueries(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2016, 1, 4, 0, 0, 0, 0, time.UTC)
	data := filepath.Join(dir, "cpu.ilp")
	other := filepath.Join(dir, "other.ilp")
	for i, p := range []string{data, other} {
		if _, err := gen.Generate(context.Background(), gen.Config{UseCase: "cpu-only", Format: format.ILP, Seed: uint64(1 + i), Scale: 4,
			Start: start, End: start.Add(2 * time.Hour), Interval: 10 * time.Second, File: p, Workers: 1}); err != nil {
			t.Fatal(err)
		}
	}
	qs := filepath.Join(dir, "q.tsq")
	if err := querybench.WriteFile(querybench.GenConfig{UseCase: "cpu-only", Seed: 1, Scale: 4, Start: start, End: start.Add(2 * time.Hour),
		PerType: 2}, qs, nil); err != nil {
		t.Fatal(err)
	}
	db, res := filepath.Join(dir, "b.duckdb"), filepath.Join(dir, "r.json")
	run := func(args ...string) (*results.Results, string, error) {
		var stderr bytes.Buffer
		os.Remove(res)
		err := loadcli.Run(context.Background(), spec(), append([]string{"load_duckdb", "--db-path", db, "--results-file", res}, args...), nil, &stderr)
		var r results.Results
		if b, rerr := os.ReadFile(res); rerr == nil {
			json.Unmarshal(b, &r)
		}
		return &r, stderr.String(), err
	}
	r, log, err := run("--file", data, "--drop-db", "--queries", qs, "--queries-workers", "2", "--queries-warmup", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	qb := r.QueryBench
	if r.Rows == 0 || qb == nil || !qb.Checked || qb.All.Count != 30 || qb.All.Wrong != 0 || len(qb.Types) != 16 || qb.Warmup != 2 {
		t.Fatalf("results: rows %d, query bench %+v\n%s", r.Rows, qb, log)
	}
	if !strings.Contains(log, "double-groupby-all") {
		t.Errorf("no table on stderr:\n%s", log)
	}

	r, log, err = run("--file", data, "--queries", qs, "--skip-load")
	if err != nil || r.QueryBench == nil || r.QueryBench.All.Checked != 32 || r.Rows != 0 {
		t.Fatalf("--skip-load: %v %+v\n%s", err, r.QueryBench, log)
	}

	r, log, err = run("--file", other, "--queries", qs, "--skip-load", "--check=false")
	if err != nil || r.QueryBench == nil || r.QueryBench.Checked || r.QueryBench.All.Checked != 0 || !strings.Contains(log, "NOT checked") {
		t.Fatalf("--check=false: %v %+v\n%s", err, r.QueryBench, log)
	}

	// The database holds data's rows; checked against other's, answers are wrong.
	r, log, err = run("--file", other, "--queries", qs, "--skip-load")
	if err == nil || !strings.Contains(err.Error(), "wrong") || !strings.Contains(err.Error(), "want {") || r.QueryBench == nil || r.QueryBench.All.Wrong == 0 {
		t.Fatalf("checked against other data: %v\n%s", err, log)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--file", data, "--queries-workers", "2"}, "--queries-workers needs --queries"},
		{[]string{"--file", data, "--queries", filepath.Join(dir, "none.tsq")}, "no such file"},
		{[]string{"--file", data, "--queries", qs, "--table-prefix", "x_"}, `its tables start with "", but --table-prefix is "x_"`},
		{[]string{"--file", data, "--queries", qs, "--queries-warmup", "32"}, "warm-up of 32 queries"},
	} {
		if _, log, err := run(append(tc.args, "--skip-load")...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q\n%s", tc.args, err, tc.want, log)
		}
	}
}
