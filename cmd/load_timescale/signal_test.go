package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
)

// postgresURL is the server of scripts/start_postgres.sh (skip when it is
// unreachable and CI is unset).
func postgresURL(t *testing.T) string { return loadtest.PostgresURL(t) }

// freshDB returns the server's URL and the name of a database no other run
// uses (prefix_N), dropped when the test ends.
func freshDB(t *testing.T, prefix string) (base, db string) {
	base = postgresURL(t)
	db = fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		if conn, err := pgx.Connect(context.Background(), base); err == nil {
			conn.Exec(context.Background(), `DROP DATABASE IF EXISTS "`+db+`" WITH (FORCE)`)
			conn.Close(context.Background())
		}
	})
	return base, db
}

// TestSignal interrupts a real load (slowed by 10 ms per forwarded chunk
// through a fault proxy) with SIGINT and SIGTERM: the command exits 1, the
// results file says "interrupted", and the rows it counts are exactly the
// rows in the database.
func TestSignal(t *testing.T) {
	base := postgresURL(t)
	bin := loadtest.BuildLoader(t, "load_timescale")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	const rows = 100000
	var b strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "sig_m,host=h%d v=%d.5,n=%di %d\n", i%50, i, i, 1600000000000000000+int64(i/50)*1e9)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	u, _ := url.Parse(base)
	p, err := faultproxy.New(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetLatency(10 * time.Millisecond)
	u.Host = p.Addr()
	// Under CI the server has TimescaleDB (scripts/start_postgres.sh builds it).
	hypertable := "auto"
	if os.Getenv("CI") != "" {
		hypertable = "true"
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			db := fmt.Sprintf("tsload_signal_%d_%d", sig, time.Now().UnixNano()%1e9)
			results := filepath.Join(dir, db+".json")
			cmd := exec.Command(bin, "--postgres", u.String(), "--use-hypertable", hypertable, "--file", in, "--db-name", db, "--drop-db",
				"--batch-size", "500", "--workers", "2", "--results-file", results, "--reporting-period", "1h")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				conn, err := pgx.Connect(context.Background(), base)
				if err == nil {
					conn.Exec(context.Background(), `DROP DATABASE IF EXISTS "`+db+`" WITH (FORCE)`)
					conn.Close(context.Background())
				}
			}()
			// Signal once rows are in: setting up a hypertable takes a while.
			cfg, _ := pgx.ParseConfig(base)
			cfg.Database = db
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				var n int64
				if conn, err := pgx.ConnectConfig(context.Background(), cfg); err == nil {
					_ = conn.QueryRow(context.Background(), "SELECT count(*) FROM sig_m").Scan(&n)
					conn.Close(context.Background())
				}
				if n > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no rows after 60 s\n%s", stderr.String())
				}
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "load_timescale: interrupted") {
				t.Errorf("no interrupt message:\n%s", stderr.String())
			}
			res := loadtest.ReadResults(t, results)
			conn, err := pgx.ConnectConfig(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			err = conn.QueryRow(context.Background(), "SELECT count(*) FROM sig_m").Scan(&n)
			conn.Close(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != load.StatusInterrupted || res.Rows == 0 || res.Rows >= rows || res.Rows%500 != 0 {
				t.Fatalf("status %s rows %d (want interrupted, some but not all whole batches)\n%s", res.Status, res.Rows, stderr.String())
			}
			if n != res.Rows {
				t.Fatalf("results file counts %d rows, the database holds %d\n%s", res.Rows, n, stderr.String())
			}
			t.Logf("%s after %d of %d rows", sig, res.Rows, rows)
		})
	}
}
