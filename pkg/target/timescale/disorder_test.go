package timescale

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/disordertest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/usecase"
)

// disorderSetup is a target on a fresh database of the test's own.
func disorderSetup(t *testing.T) (*Target, runner.Config) {
	requireServer(t)
	cfg := Config{URL: pgURL(), DBName: testDBName(t), UseHypertable: hypertableMode()}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(); dropDB(t, cfg.DBName) })
	return tg, runner.Config{BatchSize: 500, Workers: 2,
		Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
		Loader:  "load_timescale", Target: "timescale"}
}

// TestDisorder loads generate_data's out-of-order and repeated files and
// verifies them, by count and by content: the tables tsload creates have
// no unique index, so TimescaleDB keeps every row, a repeated (series,
// time) key twice.
func TestDisorder(t *testing.T) {
	disordertest.Run(t, func(t *testing.T) (load.Target, runner.Config) { return disorderSetup(t) }, true)
}

// TestDisorderUniqueIndex: into a table made beforehand with a unique
// index on the tags and the time, a file that repeats a (series, time)
// key is refused: COPY fails on the duplicate key, the load stops naming
// it, and the refused batch is not counted (the rows acknowledged before
// are what the database holds).
func TestDisorderUniqueIndex(t *testing.T) {
	tg, rc := disorderSetup(t)
	f := disordertest.Generate(t, t.TempDir(), disordertest.Cases[1])
	tb := usecase.LookupTable("cpu")
	ctx := context.Background()
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: rc.Prepare.DBName, CreateDB: true, DropDB: true}); err != nil {
		t.Fatal(err)
	}
	conn := dbConn(t, rc.Prepare.DBName)
	cols := append(tb.Tags(), tb.TimeColumn())
	for _, stmt := range []string{tb.PostgresDDL(false), `CREATE UNIQUE INDEX cpu_key ON cpu (` + strings.Join(cols, ", ") + `)`} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var stderr bytes.Buffer
	rc.Prepare = load.PrepareOptions{DBName: rc.Prepare.DBName}
	rc.Inputs, rc.DoLoad, rc.Verify, rc.Stderr, rc.ReportingPeriod, rc.RetryTimeout = []string{f.Path}, true, true, &stderr, time.Hour, 10*time.Second
	rc.Workers = 1
	res, err := runner.Run(ctx, rc, tg)
	if err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("load of a file with repeated keys into a unique index: %v, want a duplicate key error\n%s", err, stderr.String())
	}
	var held int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM cpu`).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if res == nil || res.Rows != held || held >= f.Rows {
		t.Fatalf("the database holds %d rows, the results count %v of %d\n%s", held, res, f.Rows, stderr.String())
	}
	t.Logf("refused as it should be: %v", err)
}
