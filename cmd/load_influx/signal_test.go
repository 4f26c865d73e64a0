package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/influx"
)

// influxURL is the InfluxDB of scripts/start_influxdb.sh (skip when it is
// unreachable and CI is unset).
func influxURL(t *testing.T) string {
	return loadtest.HTTPServer(t, "InfluxDB", "TSLOAD_INFLUX_URL", "http://127.0.0.1:8086", "scripts/start_influxdb.sh")
}

// TestSignal interrupts a real load (slowed by 15 ms per forwarded chunk
// through a fault proxy, so it would take several seconds) with SIGINT and
// SIGTERM: the command exits 1, the results file says "interrupted", and
// the rows it counts are exactly the rows in the database.
func TestSignal(t *testing.T) {
	url := influxURL(t)
	bin := loadtest.BuildLoader(t, "load_influx")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	const rows = 100000
	var b strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "cpu,host=h%d,rack=r%d usage_user=%d.5,usage_idle=%di %d\n", i%50, i%7, i, i%100, 1600000000000000000+int64(i/50)*1e9)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetLatency(15 * time.Millisecond)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			db := fmt.Sprintf("tsload_signal_%d_%d", sig, time.Now().UnixNano()%1e9)
			results := filepath.Join(dir, db+".json")
			cmd := exec.Command(bin, "--urls", "http://"+p.Addr(), "--file", in, "--db-name", db, "--drop-db",
				"--batch-size", "500", "--workers", "2", "--results-file", results, "--reporting-period", "1h")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the load runs (rows in the database), not after a
			// fixed time: on a loaded machine the set-up can take longer.
			probe, perr := influx.New(influx.Config{URLs: []string{url}, Precision: "n", DBName: db})
			if perr != nil {
				t.Fatal(perr)
			}
			for wait := time.Now(); ; time.Sleep(50 * time.Millisecond) {
				if got, err := probe.Count(context.Background(), []string{"cpu"}); err == nil && got["cpu"] > 0 {
					break
				}
				if time.Since(wait) > time.Minute {
					t.Fatalf("no rows in the database a minute after the start\n%s", stderr.String())
				}
			}
			probe.Close()
			cmd.Process.Signal(sig)
			start := time.Now()
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			if d := time.Since(start); d > 7*time.Second {
				t.Errorf("took %s to stop after the signal", d)
			}
			if !strings.Contains(stderr.String(), "load_influx: interrupted") {
				t.Errorf("no interrupt message:\n%s", stderr.String())
			}
			res := loadtest.ReadResults(t, results)
			tg, err := influx.New(influx.Config{URLs: []string{url}, Precision: "n", DBName: db})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			defer tg.Query(context.Background(), "", `DROP DATABASE "`+db+`"`)
			got, err := tg.Count(context.Background(), []string{"cpu"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != load.StatusInterrupted || res.Rows == 0 || res.Rows >= rows || res.Rows%500 != 0 {
				t.Fatalf("status %s rows %d (want interrupted, some but not all whole batches)\n%s", res.Status, res.Rows, stderr.String())
			}
			if got["cpu"] != res.Rows {
				t.Fatalf("results file counts %d rows, the database holds %d\n%s", res.Rows, got["cpu"], stderr.String())
			}
			t.Logf("%s after %d of %d rows", sig, res.Rows, rows)
		})
	}
}
