package timescale

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

const pgBin = "/usr/lib/postgresql/15/bin"

// privateServer is a throwaway PostgreSQL cluster of the test's own, so a
// restart disturbs no other package's tests on the shared server.
type privateServer struct {
	data, log, url string
	port           int
	opts           string // the server's -o options
}

func (s *privateServer) ctl(t *testing.T, args ...string) {
	t.Helper()
	args = append([]string{"-u", "postgres", "--", pgBin + "/pg_ctl", "-D", s.data, "-l", s.log}, args...)
	// The server's output goes to its log: a pipe to this test would keep
	// CombinedOutput waiting for the server to exit.
	if out, err := exec.Command("runuser", args...).CombinedOutput(); err != nil {
		logText, _ := os.ReadFile(s.log)
		t.Fatalf("pg_ctl %v: %v\n%s\n%s", args[len(args)-1], err, out, logText)
	}
}

// startPrivateServer initdbs and starts a cluster on a free port; it skips
// when this machine cannot (no PostgreSQL 15 binaries, no postgres user, not root).
//
// extra are more -o options (e.g. "-c synchronous_commit=off").
func startPrivateServer(t *testing.T, extra ...string) *privateServer {
	t.Helper()
	pgUser, err := user.Lookup("postgres")
	if _, statErr := os.Stat(pgBin + "/initdb"); statErr != nil || err != nil || os.Geteuid() != 0 {
		t.Skip("needs root, the postgres OS user and PostgreSQL 15 binaries (scripts/start_postgres.sh installs them)")
	}
	uid, _ := strconv.Atoi(pgUser.Uid)
	gid, _ := strconv.Atoi(pgUser.Gid)
	dir, err := os.MkdirTemp("", "tsload-pg-restart-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &privateServer{data: filepath.Join(dir, "data"), log: filepath.Join(dir, "log"), port: port,
		url: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	if out, err := exec.Command("runuser", "-u", "postgres", "--", pgBin+"/initdb", "-D", s.data, "-U", "postgres",
		"-E", "UTF8", "--auth=trust").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-c port=%d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c shared_buffers=64MB -c max_connections=30 -c fsync=off", port, dir)
	if _, err := os.Stat("/usr/lib/postgresql/15/lib/timescaledb.so"); err == nil {
		// TimescaleDB is installed (scripts/start_postgres.sh builds it): load hypertables here too.
		opts += " -c shared_preload_libraries=timescaledb -c timescaledb.telemetry_level=off"
	}
	for _, o := range extra {
		opts += " " + o
	}
	s.opts = opts
	s.ctl(t, "-o", opts, "-w", "-t", "60", "start")
	t.Cleanup(func() {
		exec.Command("runuser", "-u", "postgres", "--", pgBin+"/pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop").Run()
	})
	return s
}

// TestServerRestartMidLoad restarts PostgreSQL (pg_ctl restart -m fast)
// while runner.Run loads: the aborted batches are retried after the server
// is back and the final counts are exact.
func TestServerRestartMidLoad(t *testing.T) {
	requireServer(t) // the integration-test switch: skip without CI when there is no server
	srv := startPrivateServer(t)
	file, st := genFile(t, "cpu-only", format.PGCopy, 50, 100000, false)
	db := "restart_test"
	tg, err := New(Config{URL: srv.url, DBName: db, Method: MethodInsertMulti, UseHypertable: hypertableMode()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })

	type result struct {
		res *results.Results
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
			if cfg, err := pgx.ParseConfig(srv.url); err == nil {
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
	srv.ctl(t, "-m", "fast", "-w", "-t", "60", "restart")
	r := <-done
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, stderr.String())
	}
	if r.res.Status != results.StatusOK || r.res.Rows != st.Rows || !r.res.Verify.OK {
		t.Fatalf("status %s rows %d of %d verify %+v\n%s", r.res.Status, r.res.Rows, st.Rows, r.res.Verify, stderr.String())
	}
	if r.res.Retries == 0 {
		t.Fatalf("no retries: the restart did not interrupt the load\n%s", stderr.String())
	}
	t.Logf("%d retries; %d rows verified", r.res.Retries, r.res.Verify.Actual["cpu"])
}

// kill sends SIGKILL to the postmaster and every process it started, at
// once (a crash: nothing is flushed, shared memory is lost), and waits
// until they are gone. It may be called from any goroutine.
func (s *privateServer) kill() error {
	raw, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return err
	}
	pm, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		return fmt.Errorf("postmaster.pid: %w", err)
	}
	pids := []int{pm}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		stat, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscan(string(stat[i+1:]), &state, &ppid); err == nil && ppid == pm {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, pid := range pids {
		for i := 0; loadtest.Alive(pid); i++ {
			if i > 400 {
				return fmt.Errorf("pid %d alive 10 s after SIGKILL", pid)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	// A killed postmaster may stay a zombie here (no init reaps it), which
	// the next start would take for a running server: its lock files go,
	// as the process would after a machine crash.
	os.Remove(filepath.Join(filepath.Dir(s.data), fmt.Sprintf(".s.PGSQL.%d.lock", s.port)))
	return os.Remove(filepath.Join(s.data, "postmaster.pid"))
}

// start starts the server again on its data (crash recovery after kill).
func (s *privateServer) start() error {
	args := []string{"-u", "postgres", "--", pgBin + "/pg_ctl", "-D", s.data, "-l", s.log, "-o", s.opts, "-w", "-t", "60", "start"}
	if out, err := exec.Command("runuser", args...).CombinedOutput(); err != nil {
		logText, _ := os.ReadFile(s.log)
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, logText)
	}
	return nil
}
