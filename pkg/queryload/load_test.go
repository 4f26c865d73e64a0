package queryload_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/lppoints"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/queryload"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// queryFake is the fake target that keeps the lines it acknowledged and
// answers queries over them with query.Eval: the query load's answers are
// checked end to end, from the runner's queries to what was stored.
type queryFake struct {
	*memTarget
	dataMu sync.Mutex
	data   []byte
	// lag: rows become visible to queries this long after they were
	// acknowledged (load.Hooks.QueryLag); visible is where data ends.
	lag    time.Duration
	chunks []lagChunk
	// unseen: the lag is not declared as QueryLag but as AcksNotVisible
	// (not at all when unsaid; only once Prepare ran when late, as
	// InfluxDB's target learns its API).
	unseen, unsaid, late bool
	visible              int
	// tamper changes a stored row as a query reads it (a value changed
	// behind the loader's back).
	tamper func(p *query.Point)
	// block makes every query wait until the load finished (or its
	// context ends).
	block    bool
	finished atomic.Bool
	inflight atomic.Int64
	opened   atomic.Int64
	closed   atomic.Int64
	queries  atomic.Int64
}

func newQueryFake() *queryFake { return &queryFake{memTarget: newMemTarget()} }

func (f *queryFake) Hooks() load.Hooks {
	h := load.Hooks{NewQuerier: f.NewQuerier, QueryLag: f.lag, Finish: func(context.Context) error { f.finished.Store(true); return nil }}
	if f.unseen {
		// The lag is the fake's, and the target does not say it.
		h.QueryLag, h.AcksNotVisible = 0, !f.unsaid && (!f.late || f.memTarget.prepared != nil)
	}
	return h
}

func (f *queryFake) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := f.memTarget.NewWriter(ctx, worker)
	return &keepingWriter{Writer: w, f: f}, err
}

type lagChunk struct {
	at  time.Time
	end int
}

type keepingWriter struct {
	load.Writer
	f *queryFake
}

func (w *keepingWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	ack, err := w.Writer.Write(ctx, b)
	if err == nil && ack.Rows == b.Rows {
		w.f.dataMu.Lock()
		w.f.data = append(w.f.data, b.Data...)
		w.f.chunks = append(w.f.chunks, lagChunk{time.Now(), len(w.f.data)})
		w.f.dataMu.Unlock()
	}
	return ack, err
}

func (f *queryFake) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	f.opened.Add(1)
	return fakeQuerier{f}, nil
}

type fakeQuerier struct{ f *queryFake }

func (q fakeQuerier) Close() error {
	q.f.closed.Add(1)
	return nil
}

func (q fakeQuerier) Query(ctx context.Context, qy *query.Query) (*query.Answer, error) {
	f := q.f
	f.inflight.Add(1)
	defer f.inflight.Add(-1)
	f.queries.Add(1)
	for f.block && !f.finished.Load() {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	f.dataMu.Lock()
	for len(f.chunks) > 0 && time.Since(f.chunks[0].at) >= f.lag {
		f.visible, f.chunks = f.chunks[0].end, f.chunks[1:]
	}
	data := bytes.Clone(f.data[:f.visible])
	f.dataMu.Unlock()
	var err error
	ans := query.Eval(qy, func(yield func(query.Point) bool) {
		err = lppoints.Each(data, func(table string, p query.Point) bool {
			if table != qy.Table {
				return true
			}
			if f.tamper != nil {
				f.tamper(&p)
			}
			return yield(p)
		})
	})
	return ans, err
}

func queryConfig(path string) runner.Config {
	cfg := baseConfig(path)
	cfg.BatchSize = 100
	cfg.Prepare.DropDB = true
	cfg.QueryRate = 2000
	cfg.QueryWorkers = 2
	return cfg
}

func byName(q *results.Queries) map[string]results.QueryType {
	out := map[string]results.QueryType{}
	for _, t := range q.Types {
		out[t.Name] = t
	}
	return out
}

// TestQueriesChecked: every query type of cpu-only and iot (its delayed
// rows and NULLs) is answered and checked right, while loading and over
// the whole load.
func TestQueriesChecked(t *testing.T) {
	for _, name := range []string{"cpu-only.ilp", "iot.ilp", "iot.ilp.gz"} {
		uc := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".ilp")
		t.Run(name, func(t *testing.T) {
			path, rows := queryload.GeneratedAs(t, name, uc, 4, 3*time.Hour)
			f := newQueryFake()
			f.delay = time.Millisecond
			cfg := queryConfig(path)
			res, err := runner.Run(context.Background(), cfg, f)
			if err != nil {
				t.Fatalf("%v\n%s", err, cfg.Stderr)
			}
			if res.Rows != rows || res.Queries == nil || !res.Queries.Checked || res.Queries.Note != "" {
				t.Fatalf("rows %d of %d, queries %+v", res.Rows, rows, res.Queries)
			}
			t.Logf("%s", cfg.Stderr)
			types := byName(res.Queries)
			for _, k := range query.Kinds(uc) {
				qt := types[k.Name]
				if qt.Checked == 0 || qt.Wrong != 0 || qt.Errors != 0 || qt.Count < qt.Checked {
					t.Errorf("%s: %+v", k.Name, qt)
				}
			}
			if !strings.Contains(cfg.Stderr.(*bytes.Buffer).String(), "queries: 2,000/s offered on 2 connections") {
				t.Errorf("summary:\n%s", cfg.Stderr)
			}
			if f.opened.Load() != 3 || f.closed.Load() != 3 { // 2 workers and the final round's
				t.Errorf("%d queriers opened, %d closed", f.opened.Load(), f.closed.Load())
			}
		})
	}
}

// TestQueriesWrongAnswer: a value changed behind the loader's back makes
// the checked queries over it wrong answers, named, and the run fails.
func TestQueriesWrongAnswer(t *testing.T) {
	path, _ := generated(t, "cpu-only", 3, time.Hour)
	f := newQueryFake()
	f.tamper = func(p *query.Point) {
		if p.Tags["hostname"] == "host_1" {
			p.Fields["usage_user"] += 0.5
		}
	}
	cfg := queryConfig(path)
	cfg.QueryMix = query.Mix{{Name: "lastpoint", Weight: 1}, {Name: "high-cpu-1", Weight: 0}}
	res, err := runner.Run(context.Background(), cfg, f)
	if err == nil || !strings.Contains(err.Error(), "wrong query answers") || !strings.Contains(err.Error(), "lastpoint: last(usage_user") {
		t.Fatalf("err %v", err)
	}
	if res.Status != results.StatusFailed || len(res.Queries.Wrong) == 0 || !strings.Contains(res.Queries.Wrong[0], "host_1") {
		t.Fatalf("status %s, wrong %q", res.Status, res.Queries.Wrong)
	}
	if qt := byName(res.Queries)["lastpoint"]; qt.Wrong == 0 || qt.Wrong > qt.Checked {
		t.Errorf("%+v", qt)
	}
	if !strings.Contains(cfg.Stderr.(*bytes.Buffer).String(), "WRONG ANSWER") {
		t.Errorf("stderr:\n%s", cfg.Stderr)
	}
}

// TestQueriesBounded: queries that do not come back neither hold the
// writers nor grow the backlog past its cap, and stop with the load.
func TestQueriesBounded(t *testing.T) {
	path, rows := generated(t, "cpu-only", 4, 2*time.Hour)
	f := newQueryFake()
	f.block = true
	f.delay = time.Millisecond
	cfg := queryConfig(path)
	cfg.QueryRate = 100000
	res, err := runner.Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatalf("%v\n%s", err, cfg.Stderr)
	}
	q := res.Queries
	if res.Rows != rows {
		t.Errorf("%d rows of %d loaded", res.Rows, rows)
	}
	if q.BacklogCap != queryload.MaxBacklog*2 || q.MaxBacklog > int64(q.BacklogCap) || q.Dropped > q.Issued {
		t.Errorf("backlog %d of %d, %d dropped of %d", q.MaxBacklog, q.BacklogCap, q.Dropped, q.Issued)
	}
	if n := f.inflight.Load(); n != 0 {
		t.Errorf("%d queries running after the run", n)
	}
	if f.closed.Load() != 3 {
		t.Errorf("%d queriers closed", f.closed.Load())
	}
	for _, qt := range q.Types { // the final round, after the load
		if qt.Checked == 0 || qt.Wrong != 0 {
			t.Errorf("%+v", qt)
		}
	}
}

// TestQueriesRefused: a query load that cannot run is refused before
// anything is prepared.
func TestQueriesRefused(t *testing.T) {
	path, _ := generated(t, "cpu-only", 1, time.Hour)
	plain := filepath.Join(t.TempDir(), "plain.ilp") // no description
	if err := os.WriteFile(plain, []byte("cpu,hostname=host_0 usage_user=1 1451606400000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		cfg  runner.Config
		t    load.Target
		want string
	}{
		"no querier":     {queryConfig(path), newMemTarget(), "cannot be queried"},
		"no description": {queryConfig(plain), newQueryFake(), "no description"},
		"unknown type": {func() runner.Config {
			c := queryConfig(path)
			c.QueryMix = query.Mix{{Name: "last-loc", Weight: 1}}
			return c
		}(), newQueryFake(), "last-loc is not a query of cpu-only"},
	} {
		_, err := runner.Run(context.Background(), c.cfg, c.t)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
		var p *load.PrepareOptions
		switch tg := c.t.(type) {
		case *memTarget:
			p = tg.prepared
		case *queryFake:
			p = tg.prepared
		}
		if p != nil {
			t.Errorf("%s: prepared", name)
		}
	}
}

// TestQueriesPacedLag: with --rate, on a target whose rows become visible
// a while after their acknowledgement (load.Hooks.QueryLag), checked
// answers cover only what is visible.
func TestQueriesPacedLag(t *testing.T) {
	path, rows := generated(t, "cpu-only", 4, 2*time.Hour)
	f := newQueryFake()
	f.lag = 30 * time.Millisecond
	cfg := queryConfig(path)
	cfg.Pace = pace.Pace{Rate: 20000}
	cfg.QueryRate = 500
	res, err := runner.Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatalf("%v\n%s", err, cfg.Stderr)
	}
	if res.Rows != rows || res.Pace == nil {
		t.Fatalf("%d rows of %d, pace %v", res.Rows, rows, res.Pace)
	}
	for _, qt := range res.Queries.Types {
		if qt.Checked == 0 || qt.Wrong != 0 {
			t.Errorf("%+v", qt)
		}
	}
}

// TestQueriesSerializationPass: the pass that reads without loading runs
// no queries (there is no database to ask); the load after it does.
func TestQueriesSerializationPass(t *testing.T) {
	path, rows := generated(t, "cpu-only", 2, time.Hour)
	f := newQueryFake()
	cfg := queryConfig(path)
	cfg.SerializationPass = true
	res, err := runner.Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatalf("%v\n%s", err, cfg.Stderr)
	}
	if res.Rows != rows || res.Serialization == nil || res.Queries == nil || res.Queries.All.Checked == 0 {
		t.Fatalf("rows %d of %d, serialization %v, queries %+v", res.Rows, rows, res.Serialization, res.Queries)
	}
}

// TestQueriesInFlight: where the input cannot say what the tables hold
// (here --hash-workers, which cuts batches out of input order), queries
// run over data in flight, unchecked, and the results say why.
func TestQueriesInFlight(t *testing.T) {
	path, rows := generated(t, "cpu-only", 4, time.Hour)
	f := newQueryFake()
	f.tamper = func(p *query.Point) { p.Fields["usage_user"]++ } // not seen: nothing is checked
	cfg := queryConfig(path)
	cfg.HashWorkers = true
	res, err := runner.Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatalf("%v\n%s", err, cfg.Stderr)
	}
	q := res.Queries
	if res.Rows != rows || q.Checked || !strings.Contains(q.Note, "--hash-workers") || q.All.Count == 0 || q.All.Checked != 0 {
		t.Fatalf("rows %d of %d, queries %+v", res.Rows, rows, q)
	}
}

// generated writes a generated line-protocol file with its description.
func generated(t testing.TB, uc string, scale int, span time.Duration) (string, int64) {
	return queryload.GeneratedAs(t, uc+".ilp", uc, scale, span)
}
