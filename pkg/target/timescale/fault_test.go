package timescale

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/servertest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/schema"
)

// Fault injection through internal/faultproxy, the whole path (runner.Run,
// this target, the real PostgreSQL of scripts/start_postgres.sh). Retryable
// faults must end with the exact count verified and no duplicate; the
// non-retryable one with an error naming the cause and a results file
// marked failed whose rows equal what the database holds. A server restart
// mid-load is TestServerRestartMidLoad (restart_test.go).

// faultILP writes rows of line protocol of measurement m (one series per
// host, a unique timestamp per row within a host), and returns its path.
func faultILP(t *testing.T, m string, rows int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%s,host=h%d v=%d.5,n=%di %d\n", m, i%10, i, i, 1600000000000000000+int64(i/10)*1e9)
	}
	path := filepath.Join(t.TempDir(), m+".ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type faultRun struct {
	loadtest.Run
	db string
	tg *Target
}

// runFault loads path into a fresh database through the target of cfg
// (its URL already set) with workers and batch, writing a results file.
func runFault(t *testing.T, cfg Config, path string, batch, workers int) faultRun {
	t.Helper()
	db := testDBName(t)
	cfg.DBName = db
	if cfg.UseHypertable == "" {
		cfg.UseHypertable = hypertableMode()
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropDB(t, db) })
	defer tg.Close()
	rc := loadtest.FaultConfig(path, batch, workers)
	rc.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	rc.Loader, rc.Target = "load_timescale", "timescale"
	return faultRun{Run: loadtest.RunLoad(t, rc, tg), db: db, tg: tg}
}

// dbRows counts table's rows and its distinct (host, time) keys directly.
func (f faultRun) dbRows(t *testing.T, table string) (rows, keys int64) {
	t.Helper()
	return tableRows(t, f.db, table)
}

// exact checks a run that must have survived with every row in once.
func (f faultRun) exact(t *testing.T, table string, rows int64) {
	t.Helper()
	f.Exact(t, rows)
	checkTableKind(t, f.tg, table, f.tg.cfg.UseHypertable == "false")
	if n, keys := f.dbRows(t, table); n != rows || keys != rows {
		t.Fatalf("database holds %d rows, %d distinct, want %d", n, keys, rows)
	}
}

// TestFaults runs the shared fault scenarios (internal/loadtest.FaultSuite)
// with a fault proxy in front of the real PostgreSQL, into hypertables and
// plain tables. A COPY cut short never commits, so a re-send cannot
// duplicate it; a batch whose COMMIT answer was lost is resolved, not
// re-sent blindly (Writer.resolve).
func TestFaults(t *testing.T) {
	requireServer(t)
	for i, mode := range []Hypertable{hypertableMode(), HypertableOff} {
		t.Run("hypertable="+string(mode), func(t *testing.T) {
			var private func(t *testing.T) loadtest.Private
			if i == 0 {
				private = privatePostgres // one kill is enough
			}
			loadtest.FaultSuite{
				Loader:   "load_timescale",
				Upstream: pgURL(),
				New:      faultTarget(mode),
				Rows:     faultRows,
				// A string for the double precision column v (refused by the
				// target before sending; a refusal by the server is
				// TestFaultPermissionDenied).
				Refuse:    func(line string) string { return strings.Replace(line, " v=", ` v="oops",w=`, 1) },
				RefuseErr: []string{"record 3457", "conflicts with the column's type float8"},
				Timeouts: func(tg load.Target) int64 {
					_, committed := tg.(*Target).LostCommits()
					return committed
				},
				Private: private,
			}.Run(t, "fault")
		})
	}
}

// TestFaultTerminateBackends terminates the loader's busy backends five
// times (SQLSTATE 57P01 admin shutdown, the server's way of shedding load),
// whatever they run (COPY, COMMIT, CREATE TABLE, create_hypertable, the
// count), except Prepare's queries, which the runner does not retry.
func TestFaultTerminateBackends(t *testing.T) {
	requireServer(t)
	path := faultILP(t, "fault_term", 40000)
	admin, err := pgx.Connect(context.Background(), pgURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	stop := make(chan struct{})
	done := make(chan int)
	var db string
	go func() {
		killed := 0
		defer func() { done <- killed }()
		for round := 0; round < 5; {
			select {
			case <-stop:
				return
			case <-time.After(40 * time.Millisecond):
			}
			var n int
			err := admin.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name = 'tsload' AND datname LIKE 'tsl_testfaultterminatebackends_%' AND state = 'active'
				AND query NOT LIKE '%pg_available_extensions%' AND query NOT LIKE 'CREATE EXTENSION%'`).Scan(&n)
			if err == nil && n > 0 {
				killed += n
				round++
			}
		}
	}()
	f := runFault(t, Config{URL: pgURL(), Method: MethodInsertMulti}, path, 500, 2)
	close(stop)
	killed := <-done
	db = f.db
	f.exact(t, "fault_term", 40000)
	if killed == 0 || f.Res.Retries == 0 {
		t.Errorf("%d backends terminated, %d retries", killed, f.Res.Retries)
	}
	t.Logf("%d backends of %s terminated, %d re-sends", killed, db, f.Res.Retries)
}

// TestFaultPermissionDenied loads with a role that may write one table but
// not the other (SQLSTATE 42501): the run stops at the first batch of the
// second table, names the cause, and counts exactly the rows of the first.
func TestFaultPermissionDenied(t *testing.T) {
	requireServer(t)
	ctx := context.Background()
	role := fmt.Sprintf("tsload_ro_%d", os.Getpid())
	db := testDBName(t)
	admin, err := pgx.Connect(ctx, pgURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + db + " WITH (FORCE)",
		"CREATE DATABASE " + db,
		"DROP ROLE IF EXISTS " + role,
		"CREATE ROLE " + role + " LOGIN",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		dropDB(t, db)
		admin, err := pgx.Connect(context.Background(), pgURL())
		if err == nil {
			admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
			admin.Close(context.Background())
		}
	})
	conn := dbConn(t, db)
	setup := []string{
		"CREATE TABLE perm_ok (time timestamptz NOT NULL, host text, v double precision, n bigint)",
		"CREATE TABLE perm_denied (time timestamptz NOT NULL, host text, v double precision, n bigint)",
	}
	mode := hypertableMode()
	if mode == "auto" {
		// Hypertables when the server has TimescaleDB (the role may not create the extension).
		if err := conn.QueryRow(ctx, `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_settings
			WHERE name = 'timescaledb.disable_load' AND vartype = 'bool') THEN 'true' ELSE 'false' END`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
	}
	if mode == "true" {
		// The owner makes the hypertables; the role's loader finds them.
		setup = append([]string{"CREATE EXTENSION IF NOT EXISTS timescaledb"}, setup...)
		setup = append(setup, "SELECT create_hypertable('perm_ok', by_range('time'))", "SELECT create_hypertable('perm_denied', by_range('time'))")
	}
	for _, q := range append(setup,
		"GRANT CREATE, USAGE ON SCHEMA public TO "+role,
		"GRANT SELECT, INSERT ON perm_ok TO "+role,
		"GRANT SELECT ON perm_denied TO "+role,
	) {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		m := "perm_ok"
		if i >= 3000 {
			m = "perm_denied"
		}
		fmt.Fprintf(&b, "%s,host=h%d v=%d.5,n=%di %d\n", m, i%10, i, i, 1600000000000000000+int64(i)*1e9)
	}
	path := filepath.Join(dir, "perm.ilp")
	os.WriteFile(path, []byte(b.String()), 0o644)

	u, _ := url.Parse(pgURL())
	u.User = url.User(role)
	tg, err := New(Config{URL: u.String(), DBName: db, UseHypertable: mode})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	resultsPath := filepath.Join(dir, "results.json")
	var stderr bytes.Buffer
	_, err = runner.Run(ctx, runner.Config{
		Inputs: []string{path}, BatchSize: 1000, Workers: 1, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 30 * time.Second, Stderr: &stderr, ResultsFile: resultsPath,
		Prepare: load.PrepareOptions{DBName: db, CreateDB: true},
		Loader:  "load_timescale", Target: "timescale",
	}, tg)
	if err == nil || !strings.Contains(err.Error(), "permission denied for table perm_denied") || !strings.Contains(err.Error(), "42501") {
		t.Fatalf("err = %v, want permission denied (42501)\n%s", err, stderr.String())
	}
	r := loadtest.ReadResults(t, resultsPath)
	var inDB, denied int64
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM perm_ok), (SELECT count(*) FROM perm_denied)").Scan(&inDB, &denied); err != nil {
		t.Fatal(err)
	}
	if r.Status != results.StatusFailed || r.Rows != 3000 || inDB != r.Rows || denied != 0 || r.Retries != 0 {
		t.Fatalf("status %s rows %d retries %d; database: perm_ok %d perm_denied %d", r.Status, r.Rows, r.Retries, inDB, denied)
	}
	checkTableKind(t, tg, "perm_ok", mode == "false")
}

// TestResolveLostCommit checks how a writer decides a batch whose COMMIT
// answer was lost: a transaction still open on its backend is stopped
// (terminated, so a COMMIT still in flight cannot land later) and found not
// committed; a committed one is found committed and its backend left alone.
func TestResolveLostCommit(t *testing.T) {
	tg := newTestTarget(t, Config{UseHypertable: "false"})
	ctx := context.Background()
	setup := dbConn(t, tg.cfg.DBName)
	if _, err := setup.Exec(ctx, "CREATE TABLE lost (v int)"); err != nil {
		t.Fatal(err)
	}
	wr, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	w := wr.(*Writer)
	// begin opens a transaction as a batch would, on a connection of its own.
	begin := func() (*pgx.Conn, int64) {
		conn, err := tg.connect(ctx, tg.cfg.DBName)
		if err != nil {
			t.Fatal(err)
		}
		var xid int64
		if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT txid_current()").Scan(&xid); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO lost VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		return conn, xid
	}

	open, xid := begin() // COMMIT never arrived: the backend still holds the transaction
	w.xid, w.pid = xid, open.PgConn().PID()
	in, err := w.resolve(ctx)
	if err != nil || in {
		t.Fatalf("open transaction: committed %v, err %v; want false", in, err)
	}
	if err := open.Ping(ctx); err == nil {
		t.Error("the backend of the open transaction still runs")
	}
	open.Close(ctx)

	done, xid := begin() // COMMIT landed, its answer was lost
	if _, err := done.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	w.xid, w.pid = xid, done.PgConn().PID()
	in, err = w.resolve(ctx)
	if err != nil || !in {
		t.Fatalf("committed transaction: committed %v, err %v; want true", in, err)
	}
	if err := done.Ping(ctx); err != nil {
		t.Errorf("the backend of the committed transaction was terminated: %v", err)
	}
	done.Close(ctx)
	var n int
	if err := setup.QueryRow(ctx, "SELECT count(*) FROM lost").Scan(&n); err != nil || n != 1 {
		t.Fatalf("table holds %d rows (%v), want the committed one only", n, err)
	}
}

// TestFaultMalformedInput: line 25001 of the input is malformed (a NUL byte
// in a tag). The run stops naming it; the batches before it that were
// written are counted, and exactly those are in the table.
func TestFaultMalformedInput(t *testing.T) {
	requireServer(t)
	path := faultILP(t, "fault_bad", 30000)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[25000] = "fault_bad,host=a\x00b v=1.5,n=1i 1600000000000000000\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	f := runFault(t, Config{URL: pgURL()}, path, 1000, 2)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "record 25001 (line 25001, byte offset") || !strings.Contains(f.Err.Error(), "NUL byte in tag") {
		t.Fatalf("err = %v\n%s", f.Err, f.Log)
	}
	r := loadtest.ReadResults(t, f.Results)
	n, keys := f.dbRows(t, "fault_bad")
	if r.Status != results.StatusFailed || r.Rows == 0 || r.Rows > 25000 || r.Rows%1000 != 0 || n != r.Rows || keys != n {
		t.Fatalf("status %s rows %d; table holds %d (%d distinct)", r.Status, r.Rows, n, keys)
	}
}

// privatePostgres starts a PostgreSQL cluster of the test's own (TimescaleDB
// preloaded when installed) for the suite's kill scenario, with
// synchronous_commit=off: COMMIT is answered before its WAL is written, and
// wal_writer_delay=10s leaves the last commits in shared memory, so the
// SIGKILL of every server process loses batches already acknowledged. The
// writers must find them (txid_status after the reconnect) and re-send them.
func privatePostgres(t *testing.T) loadtest.Private {
	srv := startPrivateServer(t, "-c synchronous_commit=off", "-c wal_writer_delay=10s")
	const db = "kill"
	return loadtest.Private{
		Upstream: fmt.Sprintf("127.0.0.1:%d", srv.port),
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			u, err := url.Parse(srv.url)
			if err != nil {
				t.Fatal(err)
			}
			u.Host = proxy
			var note bytes.Buffer
			tg, err := New(Config{URL: u.String(), DBName: db, UseHypertable: hypertableMode(), RequestTimeout: timeout, Log: &note})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				tg.Close()
				if !strings.Contains(note.String(), "synchronous_commit=off") {
					t.Errorf("no note of synchronous_commit=off: %q", note.String())
				}
				t.Logf("%d acknowledged batches lost in the crash and re-sent", tg.AsyncResent())
			})
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		},
		Rows: func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
			conn := servertest.PGConnectURL(t, srv.url, db)
			defer conn.Close(context.Background())
			q := "SELECT count(*), count(DISTINCT (host, time)) FROM " + schema.QuoteIdent(table)
			if err := conn.QueryRow(context.Background(), q).Scan(&rows, &keys); err != nil {
				t.Fatal(err)
			}
			return rows, keys
		},
		Kill: srv.kill, Start: srv.start,
	}
}

// faultTarget makes the suites' targets: a database of the test's own,
// hypertables as mode says, through proxy.
func faultTarget(mode Hypertable) func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		u, err := url.Parse(pgURL())
		if err != nil {
			t.Fatal(err)
		}
		u.Host = proxy
		db := testDBName(t)
		t.Cleanup(func() { dropDB(t, db) })
		tg, err := New(Config{URL: u.String(), DBName: db, UseHypertable: mode, RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	}
}

// faultRows reads table's rows and distinct (host, time) keys directly.
func faultRows(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	return tableRows(t, tg.(*Target).cfg.DBName, table)
}

// tableRows reads the rows of table in database db and its distinct (host,
// time) keys directly.
func tableRows(t *testing.T, db, table string) (rows, keys int64) {
	t.Helper()
	q := "SELECT count(*), count(DISTINCT (host, time)) FROM " + schema.QuoteIdent(table)
	if err := dbConn(t, db).QueryRow(context.Background(), q).Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	return rows, keys
}
