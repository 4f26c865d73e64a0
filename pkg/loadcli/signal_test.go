package loadcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// slowTarget acknowledges one batch every 20ms.
type slowTarget struct{ load.Unsupported }

func (slowTarget) Accepts(format.Format) error                        { return nil }
func (slowTarget) Prepare(context.Context, load.PrepareOptions) error { return nil }
func (slowTarget) NewWriter(context.Context, int) (load.Writer, error) {
	return slowWriter{}, nil
}
func (slowTarget) Count(_ context.Context, tables []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, t := range tables {
		out[t] = 0 // only counted before loading: the run is interrupted
	}
	return out, nil
}
func (slowTarget) Close() error { return nil }

type slowWriter struct{}

func (slowWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	select {
	case <-time.After(20 * time.Millisecond):
		return load.Ack{Rows: b.Rows}, nil
	case <-ctx.Done():
		return load.Ack{}, ctx.Err()
	}
}
func (slowWriter) Close() error { return nil }

// hangTarget's writer never answers and ignores its context: a server
// that hangs a request the client cannot cancel.
type hangTarget struct{ slowTarget }

func (hangTarget) NewWriter(context.Context, int) (load.Writer, error) { return hangWriter{}, nil }

type hangWriter struct{}

func (hangWriter) Write(context.Context, *load.Batch) (load.Ack, error) { select {} }
func (hangWriter) Close() error                                         { return nil }

// TestMain lets the test binary act as a loader (for the signal test).
func TestMain(m *testing.M) {
	if args := os.Getenv("LOADCLI_TEST_ARGS"); args != "" {
		os.Args = strings.Split(args, "\x1f")
		var t load.Target = slowTarget{}
		if os.Getenv("LOADCLI_TEST_HANG") != "" {
			t = hangTarget{}
		}
		Main(Spec{Name: "load_slow", Target: "slow", New: func(*cli.Context, runner.Config) (load.Target, Overrides, error) {
			return t, Overrides{}, nil
		}})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSIGTERM(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "d.ilp")
	os.WriteFile(input, bytes.Repeat([]byte("cpu,host=a v=1 1\n"), 100000), 0o644)
	resultsPath := filepath.Join(dir, "r.json")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LOADCLI_TEST_ARGS="+strings.Join([]string{"load_slow", "--file", input, "--batch-size", "100", "--reporting-period", "50ms", "--results-file", resultsPath}, "\x1f"))
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once rows are being acknowledged (a period line shows them).
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "00 rows\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "load_slow: interrupted (terminated signal received): stopped reading") {
		t.Fatalf("last line %q", last)
	}
	var res results.Results
	data, _ := os.ReadFile(resultsPath)
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != results.StatusInterrupted || res.Rows == 0 || res.Rows >= 100000 || res.Rows%100 != 0 {
		t.Fatalf("status %s rows %d", res.Status, res.Rows)
	}
	if !strings.Contains(stderr.String(), "loaded ") {
		t.Errorf("no summary: %s", stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a poller.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
