package timescale

import (
	"bytes"
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
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

// TestResumeSummaryCountsEachBatchOnce: a load_timescale run with
// synchronous_commit=off is killed (SIGKILL) while its 13th batch of 20
// waits on a row lock the test holds, with the server up: the batches
// acknowledged asynchronously since the last synchronous commit are
// written and still in doubt in the journal, the 13th is not written.
// --resume settles them by their transaction ids; its summary names each
// batch once (those earlier runs acknowledged for good, then those in
// doubt: found written or not), the results' figures agree, and the table
// ends with exactly the input's rows.
func TestResumeSummaryCountsEachBatchOnce(t *testing.T) {
	requireServer(t)
	srv := startPrivateServer(t, "-c synchronous_commit=off")
	const (
		db      = "summary_test"
		batch   = 1000
		batches = 20
	)
	file, st := genFile(t, "cpu-only", format.ILP, 10, batches*batch, false)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if int64(len(lines)) < st.Rows || st.Rows != batches*batch {
		t.Fatalf("%d lines, %d rows: want %d rows, one a line", len(lines), st.Rows, batches*batch)
	}
	// The table, made by a load of the first record, emptied, and given a
	// unique index on (hostname, time).
	seed := filepath.Join(t.TempDir(), "seed.ilp")
	if err := os.WriteFile(seed, []byte(lines[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := New(Config{URL: srv.url, DBName: db, UseHypertable: hypertableMode()})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, err = runner.Run(context.Background(), runner.Config{Inputs: []string{seed}, BatchSize: batch, Workers: 1, DoLoad: true,
		Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}, Stderr: &stderr,
		Loader: "load_timescale", Target: "timescale"}, tg)
	tg.Close()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	pc, err := pgx.ParseConfig(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	pc.Database = db
	conn, err := pgx.ConnectConfig(context.Background(), pc)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("DELETE FROM cpu")
	exec("CREATE UNIQUE INDEX cpu_host_time ON cpu (hostname, time)")
	// Record 12,500 (batch 13) waits on the test's uncommitted row of its
	// hostname and time.
	rec := lines[12499]
	host := rec[strings.Index(rec, "hostname=")+len("hostname="):]
	host = host[:strings.IndexAny(host, ", ")]
	ns, err := strconv.ParseInt(strings.TrimSpace(rec[strings.LastIndex(rec, " ")+1:]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	exec("BEGIN")
	exec("INSERT INTO cpu (time, hostname) VALUES ($1, $2)", time.Unix(0, ns).UTC(), host)

	bin := loadtest.BuildCommand(t, "github.com/tsload/tsload/cmd/load_timescale")
	resFile := filepath.Join(t.TempDir(), "r.json")
	loader := osexec.Command(bin, "--postgres", srv.url, "--db-name", db, "--file", file, "--batch-size", "1000", "--workers", "1",
		"--reporting-period", "50ms", "--use-hypertable", string(hypertableMode()), "--results-file", resFile)
	loader.Stderr = &stderr
	stderr.Reset()
	if err := loader.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- loader.Wait() }()
	// Kill once the journal holds batch 13 in doubt (it waits on the lock
	// for good).
	var j journal.Journal
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if jj, _, err := journal.Read(resFile); err == nil {
			j = *jj
			if n := len(j.InDoubt); n > 0 && j.InDoubt[n-1].Batch == 13 {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the loader ended (%v) before batch 13 was in doubt\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch 13 not in doubt within 2 minutes; journal: %+v\n%s", j, stderr.String())
		}
	}
	loader.Process.Kill()
	<-exited
	exec("ROLLBACK")
	// Batch 13's transaction ends (its client is gone) before the resume
	// asks about it.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		var others int
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()", db).Scan(&others); err != nil {
			t.Fatal(err)
		}
		if others == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of the killed loader still open after a minute", others)
		}
	}
	// The journal as the kill left it: what earlier runs acknowledged for
	// good, and the batches in doubt (acknowledged asynchronously since the
	// last synchronous commit, and batch 13).
	jj, _, err := journal.Read(resFile)
	if err != nil {
		t.Fatal(err)
	}
	j = *jj
	var acked, ackedRows int64
	for _, rg := range j.Inputs[0].Acked {
		acked += rg.Batches[1] - rg.Batches[0] + 1
		ackedRows += rg.Rows
	}
	doubt := int64(len(j.InDoubt))
	if acked+doubt != 13 || doubt < 2 {
		t.Fatalf("killed run's journal: %d batches acknowledged for good, in doubt %+v; want 13 in all, some acknowledged asynchronously",
			acked, j.InDoubt)
	}

	out, err := loadtest.RunCommand(bin, "--resume", resFile)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	want := fmt.Sprintf(": %d batches (%s rows) acknowledged by earlier runs are read again and skipped; %d batches in doubt: %d found written (skipped too), 1 not written (sent again)\n",
		acked, strconv.FormatInt(ackedRows, 10), doubt, doubt-1)
	if !strings.Contains(out, want) {
		t.Fatalf("the resume's summary lacks %q:\n%s", want, out)
	}
	res := loadtest.ReadResults(t, resFile)
	r := res.Resume
	if r == nil || r.InDoubt != doubt || r.SettledWritten != doubt-1 || r.SettledLost != 1 || r.SkippedBatches != acked+doubt-1 ||
		res.Batches != batches-r.SkippedBatches || r.LoadRows != st.Rows {
		t.Fatalf("resumed: %+v, %d batches acknowledged by this run; want %d in doubt (%d written, 1 not), %d skipped, %d sent, %d rows in all",
			r, res.Batches, doubt, doubt-1, acked+doubt-1, batches-(acked+doubt-1), st.Rows)
	}
	n, keys := tableRows2(t, srv.url, db)
	if res.Status != results.StatusOK || !res.Verify.OK || n != st.Rows || keys != n {
		t.Fatalf("resumed: status %s verify %+v; the table holds %d rows (%d distinct) of %d\n%s",
			res.Status, res.Verify, n, keys, st.Rows, out)
	}
	t.Logf("resumed%s", strings.TrimSuffix(want, "\n"))
}
