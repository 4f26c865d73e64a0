package questdb

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/runner"
)

// TestQueryLoadTCP: a paced load over ILP/TCP (which acknowledges nothing)
// with queries beside it: every answer checked is right, every query type
// is checked, and the rows are all there. Before the query load counted
// what TCP rows are visible (load.Hooks.AcksNotVisible), answers over rows
// sent but not yet committed came out wrong.
func TestQueryLoadTCP(t *testing.T) {
	s := server(t)
	prefix := uniqueName(t, "qtcp") + "_"
	file, rows := described(t, 50, 6*time.Hour)
	tg, err := New(Config{Transport: TCP, URL: s.http, TCPAddr: s.tcp, PG: s.pg, WALTimeout: time.Minute}) // no DEDUP: load_questdb's default over TCP
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if !tg.Hooks().AcksNotVisible {
		t.Fatal("ILP/TCP does not say its acknowledgements do not mean visible")
	}
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: 5000, Workers: 4, DoLoad: true, Verify: true, Pace: pace.Pace{Rate: 20000},
		QueryRate: 10, QueryWorkers: 2, ReportingPeriod: time.Minute, Prepare: load.PrepareOptions{CreateDB: true, DropDB: true},
		TablePrefix: prefix, Stderr: &stderr, Loader: "load_questdb", Target: "questdb",
	}, tg)
	if err != nil || res.Rows != rows || !res.Verify.OK {
		t.Fatalf("%v: rows %d of %d, verify %+v\n%s", err, res.Rows, rows, res.Verify, stderr.String())
	}
	q := res.Queries
	if !q.Checked || q.All.Wrong != 0 || q.Note != "" {
		t.Fatalf("queries %+v\n%s", q, stderr.String())
	}
	for _, qt := range q.Types {
		if qt.Checked == 0 {
			t.Errorf("%s never checked: %+v\n%s", qt.Name, qt, stderr.String())
		}
	}
	t.Logf("%d of %d answers checked", q.All.Checked, q.All.Count)
}

// TestQueryLoadHTTPVisible: ILP/HTTP acknowledges a batch once it is in
// the WAL, which the querier waits to be applied: no counting needed.
func TestQueryLoadHTTPVisible(t *testing.T) {
	tg, err := New(Config{Transport: HTTP, URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Hooks().AcksNotVisible {
		t.Error("ILP/HTTP says its acknowledgements do not mean visible")
	}
}

// described writes cpu-only of scale hosts over span with its description
// (.dataset.json: what the query load reads of it).
func described(t *testing.T, scale int, span time.Duration) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cpu.ilp.gz")
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := gen.Generate(context.Background(), gen.Config{UseCase: "cpu-only", Format: format.ILP, Seed: 9, Scale: scale,
		Start: start, End: start.Add(span), Interval: 10 * time.Second, File: path, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Rows
}
