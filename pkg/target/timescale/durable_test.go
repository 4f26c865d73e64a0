package timescale

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// TestResumeAfterCrashLosesAcknowledged kills a PostgreSQL that runs with
// synchronous_commit=off (wal_writer_delay=10s keeps the last commits in
// memory) mid-load and keeps it down until the loader gives up: batches
// the server acknowledged are lost in the crash. The failed run's results
// say how many of its rows were not known durable, its journal keeps them
// in doubt, and --resume (after the server is back) settles and re-sends
// them: the table ends with exactly the input's rows.
func TestResumeAfterCrashLosesAcknowledged(t *testing.T) {
	requireServer(t)
	srv := startPrivateServer(t, "-c synchronous_commit=off", "-c wal_writer_delay=10s")
	file, st := genFile(t, "cpu-only", format.PGCopy, 50, 60000, false)
	const db = "durable_test"
	resFile := filepath.Join(t.TempDir(), "r.json")
	newTarget := func() *Target {
		tg, err := New(Config{URL: srv.url, DBName: db, UseHypertable: hypertableMode()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg
	}
	cfg := runner.Config{
		Inputs: []string{file}, BatchSize: 100, Workers: 2, DoLoad: true, Verify: true, ResultsFile: resFile,
		ReportingPeriod: time.Second, RetryTimeout: 2 * time.Second,
		Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
		Loader:  "load_timescale", Target: "timescale",
	}
	type result struct {
		res *results.Results
		err error
	}
	done := make(chan result, 1)
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	go func() {
		res, err := runner.Run(context.Background(), cfg, newTarget())
		done <- result{res, err}
	}()

	// Kill the server (every process at once) once some rows are in.
	var conn *pgx.Conn
	deadline := time.Now().Add(60 * time.Second)
	for {
		if conn == nil {
			if pc, err := pgx.ParseConfig(srv.url); err == nil {
				pc.Database = db
				conn, _ = pgx.ConnectConfig(context.Background(), pc) // fails until Prepare made the database
			}
		}
		var n int64
		if conn != nil {
			_ = conn.QueryRow(context.Background(), "SELECT count(*) FROM cpu").Scan(&n)
		}
		if n > 3000 {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the load ended before the kill: %v\n%s", r.err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress")
		}
		time.Sleep(10 * time.Millisecond)
	}
	conn.Close(context.Background())
	if err := srv.kill(); err != nil {
		t.Fatal(err)
	}
	first := <-done
	if first.err == nil || first.res.Status == results.StatusOK {
		t.Fatalf("the run with the server down ended %s: %v\n%s", first.res.Status, first.err, stderr.String())
	}
	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	held, _ := tableRows2(t, srv.url, db)
	t.Logf("failed run: %d rows acknowledged, %d not known durable; the table holds %d after crash recovery",
		first.res.Rows, first.res.NotDurableRows, held)
	if first.res.Rows-first.res.NotDurableRows > held {
		t.Fatalf("the results claim %d durable rows, the table holds %d", first.res.Rows-first.res.NotDurableRows, held)
	}

	j, _, err := journal.Read(resFile)
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	cfg.Resume = j
	cfg.Prepare.DropDB = false
	res, err := runner.Run(context.Background(), cfg, newTarget())
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr.String())
	}
	n, keys := tableRows2(t, srv.url, db)
	if res.Status != results.StatusOK || !res.Verify.OK || n != st.Rows || keys != n {
		t.Fatalf("resumed: status %s verify %+v; the table holds %d rows (%d distinct) of %d\n%s",
			res.Status, res.Verify, n, keys, st.Rows, stderr.String())
	}
	t.Logf("resumed: %+v\n%s", *res.Resume, stderr.String())
}

// tableRows2 counts cpu's rows and distinct rows on the
// private server at url.
func tableRows2(t *testing.T, url, db string) (rows, keys int64) {
	t.Helper()
	pc, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	pc.Database = db
	conn, err := pgx.ConnectConfig(context.Background(), pc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), "SELECT count(*), count(DISTINCT c) FROM cpu c").Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	return rows, keys
}
