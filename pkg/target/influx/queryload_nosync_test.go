package influx

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestQueryLoadNoSync: a paced load into the real InfluxDB 3 with no_sync
// (acknowledged before the write-ahead log is persisted) with queries
// beside it: every answer checked is right, every query type is checked,
// and the rows are all there. Before the query load counted what rows are
// visible (load.Hooks.AcksNotVisible), answers over rows acknowledged but
// not yet queryable came out wrong.
func TestQueryLoadNoSync(t *testing.T) {
	r := influx3test.RealServer(t)
	db := influx3test.UniqueDB(t)
	r.DropAtEnd(t, db)
	file, rows := described(t, 50, 6*time.Hour)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{r.URL}, RequestTimeout: time.Minute}, API: APIv3, Precision: "n",
		Token: r.Token, DBName: db, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if !tg.Hooks().AcksNotVisible {
		t.Fatal("no_sync does not say its acknowledgements do not mean visible")
	}
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: 5000, Workers: 4, DoLoad: true, Verify: true, Pace: pace.Pace{Rate: 20000},
		QueryRate: 10, QueryWorkers: 2, ReportingPeriod: time.Minute, Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
		Stderr: &stderr, Loader: "load_influx", Target: "influx",
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

// TestQueryLoadV3AcksNotVisible: InfluxDB 3 acknowledges rows before they
// are all queryable, with or without no_sync (3.6.0 counted 2,400 of 2,880
// rows written with sync right after a load), so the query load counts
// them visible before it checks; 1.x and 2.x answer what they
// acknowledged. An API not yet detected says nothing until Prepare.
func TestQueryLoadV3AcksNotVisible(t *testing.T) {
	for _, c := range []struct {
		api  API
		want bool
	}{{APIv3, true}, {APIv1, false}, {APIv2, false}, {"", false}} {
		cfg := Config{Conn: httpwrite.Conn{URLs: []string{"http://127.0.0.1:1"}}, API: c.api, Precision: "n", DBName: "d"}
		if c.api == APIv2 {
			cfg.DBName, cfg.Bucket, cfg.Org = "", "b", "o"
		}
		tg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.Hooks().AcksNotVisible; got != c.want {
			t.Errorf("API %q: AcksNotVisible %v", c.api, got)
		}
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
