package loadtest

import (
	"bytes"
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
	"github.com/tsload/tsload/pkg/results"
)

// SignalSuite interrupts a real load with SIGINT and with SIGTERM, once
// rows are in the database: the loader, slowed by a fault proxy, must
// exit 1, say "<loader>: interrupted", and write a results file marked
// interrupted whose rows (whole batches, some but not all) are exactly
// the rows the database holds.
type SignalSuite struct {
	// Loader is the command in the test's package directory.
	Loader string
	// Upstream is the server's host:port behind the proxy; Latency slows
	// each forwarded chunk so that the load lasts seconds.
	Upstream string
	Latency  time.Duration
	// Rows lines of ILP, line(i) the i-th (no newline).
	Rows int64
	Line func(i int64) string
	// Args are the target flags of a load through the proxy at proxy
	// (host:port) into database db.
	Args func(proxy, db string) []string
	// Count is the number of rows in db (an error while the table does not
	// exist yet); Drop removes db.
	Count func(db string) (int64, error)
	Drop  func(db string)
	// MaxStop, when set, bounds the time from the signal to the exit.
	MaxStop time.Duration
}

const signalBatch = 500

// Run runs both signals.
func (s SignalSuite) Run(t *testing.T) {
	bin := BuildLoader(t, s.Loader)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	var b strings.Builder
	for i := int64(0); i < s.Rows; i++ {
		b.WriteString(s.Line(i))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(s.Upstream)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetLatency(s.Latency)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			db := fmt.Sprintf("tsload_signal_%d_%d", sig, time.Now().UnixNano()%1e9)
			resultsPath := filepath.Join(dir, db+".json")
			args := append(s.Args(p.Addr(), db), "--file", in, "--db-name", db, "--drop-db",
				"--batch-size", fmt.Sprint(signalBatch), "--workers", "2", "--results-file", resultsPath, "--reporting-period", "1h")
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer s.Drop(db)
			// Signal once the load runs (rows in the database), not after a
			// fixed time: on a loaded machine the set-up can take longer.
			for wait := time.Now(); ; time.Sleep(50 * time.Millisecond) {
				if n, err := s.Count(db); err == nil && n > 0 {
					break
				}
				if time.Since(wait) > time.Minute {
					t.Fatalf("no rows in the database a minute after the start\n%s", stderr.String())
				}
			}
			cmd.Process.Signal(sig)
			start := time.Now()
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			if d := time.Since(start); s.MaxStop > 0 && d > s.MaxStop {
				t.Errorf("took %s to stop after the signal", d)
			}
			if !strings.Contains(stderr.String(), s.Loader+": interrupted") {
				t.Errorf("no interrupt message:\n%s", stderr.String())
			}
			res := ReadResults(t, resultsPath)
			n, err := s.Count(db)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != results.StatusInterrupted || res.Rows == 0 || res.Rows >= s.Rows || res.Rows%signalBatch != 0 {
				t.Fatalf("status %s rows %d (want interrupted, some but not all whole batches)\n%s", res.Status, res.Rows, stderr.String())
			}
			if n != res.Rows {
				t.Fatalf("results file counts %d rows, the database holds %d\n%s", res.Rows, n, stderr.String())
			}
			t.Logf("%s after %d of %d rows", sig, res.Rows, s.Rows)
		})
	}
}
