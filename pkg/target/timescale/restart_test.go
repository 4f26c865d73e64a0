package timescale

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// ownServerDataDir returns the data directory of the server that
// scripts/start_postgres.sh started, when the test's server is that one and
// this process may restart it (root); "" otherwise.
func ownServerDataDir(t *testing.T) string {
	state := os.Getenv("TSLOAD_STATE")
	if state == "" {
		state = "/tmp/tsload"
	}
	dir := filepath.Join(state, "pg", "data")
	f, err := os.Open(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return ""
	}
	defer f.Close()
	// Line 4 of postmaster.pid is the port.
	sc := bufio.NewScanner(f)
	var port string
	for i := 0; i < 4 && sc.Scan(); i++ {
		port = sc.Text()
	}
	u, err := url.Parse(pgURL())
	if err != nil || (u.Port() != port && !(u.Port() == "" && port == "5432")) || os.Geteuid() != 0 {
		return ""
	}
	return dir
}

// TestServerRestartMidLoad restarts PostgreSQL (pg_ctl restart -m fast)
// while runner.Run loads: the aborted batches are retried after the server
// is back and the final counts are exact.
func TestServerRestartMidLoad(t *testing.T) {
	requireServer(t)
	dir := ownServerDataDir(t)
	if dir == "" {
		t.Skip("the server is not the one scripts/start_postgres.sh started here (or not root): cannot restart it")
	}
	file, st := genFile(t, "cpu-only", load.FormatPGCopy, 50, 100000, false)
	db := testDBName(t)
	tg, err := New(Config{URL: pgURL(), DBName: db, Method: MethodInsertMulti})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(); dropDB(t, db) })

	type result struct {
		res *load.Results
		err error
	}
	done := make(chan result, 1)
	var stderr bytes.Buffer
	go func() {
		res, err := runner.Run(context.Background(), runner.Config{
			Inputs: []string{file}, BatchSize: 200, Workers: 2, DoLoad: true, Verify: true,
			ReportingPeriod: time.Second, RetryTimeout: 90 * time.Second,
			Prepare: load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true},
			Stderr:  &stderr, Loader: "load_timescale", Target: "timescale",
		}, tg)
		done <- result{res, err}
	}()

	// Restart once some rows are in.
	var conn *pgx.Conn
	deadline := time.Now().Add(60 * time.Second)
	for {
		if conn == nil {
			if cfg, err := pgx.ParseConfig(pgURL()); err == nil {
				cfg.Database = db
				conn, _ = pgx.ConnectConfig(context.Background(), cfg) // fails until Prepare made the database
			}
		}
		var n int64
		if conn != nil {
			_ = conn.QueryRow(context.Background(), "SELECT count(*) FROM cpu").Scan(&n)
		}
		if n > 1000 {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the load ended before the restart: %v", r.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress")
		}
		time.Sleep(20 * time.Millisecond)
	}
	conn.Close(context.Background())
	// -l: the server's output must go to its log, not to this test's pipe.
	out, err := exec.Command("runuser", "-u", "postgres", "--", "/usr/lib/postgresql/15/bin/pg_ctl", "-D", dir,
		"-l", filepath.Join(filepath.Dir(dir), "postgres.log"), "-m", "fast", "-w", "-t", "60", "restart").CombinedOutput()
	if err != nil {
		t.Fatalf("restart: %v\n%s", err, out)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, stderr.String())
	}
	if r.res.Status != load.StatusOK || r.res.Rows != st.Rows || !r.res.Verify.OK {
		t.Fatalf("status %s rows %d of %d verify %+v\n%s", r.res.Status, r.res.Rows, st.Rows, r.res.Verify, stderr.String())
	}
	if r.res.Retries == 0 {
		t.Fatalf("no retries: the restart did not interrupt the load\n%s", stderr.String())
	}
	t.Logf("%d retries; %d rows verified", r.res.Retries, r.res.Verify.Actual["cpu"])
}
