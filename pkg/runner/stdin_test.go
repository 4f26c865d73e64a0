package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/results"
)

// hangBound only detects a hang: these runs end in well under a second.
const hangBound = time.Minute

// runBounded is Run, failing the test when it does not return.
func runBounded(t *testing.T, ctx context.Context, cfg Config, f *fakeTarget) (*results.Results, error) {
	t.Helper()
	type out struct {
		res *results.Results
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(ctx, cfg, f)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(hangBound):
		t.Fatalf("Run did not return within %s", hangBound)
		return nil, nil
	}
}

// stalledStdin is a pipe holding rows lines (written as they are read)
// whose writer then neither writes nor closes it: a stalled producer,
// or a terminal nobody types at.
func stalledStdin(t *testing.T, rows int) *os.File {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pw.Close(); pr.Close() })
	go pw.Write(bytes.Repeat([]byte("cpu,host=a v=1 1\n"), rows))
	return pr
}

// loaded waits until f acknowledged n rows.
func (f *fakeTarget) loaded(n int64) {
	for deadline := time.Now().Add(hangBound); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		f.mu.Lock()
		got := f.rows["cpu"]
		f.mu.Unlock()
		if got >= n {
			return
		}
	}
}

// A run waiting for stdin stops when interrupted (issue 43.7), with the
// interrupted summary and why it cannot be resumed (43.9).
func TestStdinWaitEndsAtInterrupt(t *testing.T) {
	f := newFake()
	var stderr bytes.Buffer
	cfg := baseConfig()
	cfg.Stdin = stalledStdin(t, 5000) // past the format detection's 64 KiB
	cfg.Stderr = &stderr
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		f.loaded(5000)
		cancel()
	}()
	res, err := runBounded(t, ctx, cfg, f)
	if !errors.Is(err, errInterrupted) || res.Status != results.StatusInterrupted || res.Rows != 5000 {
		t.Fatalf("err %v, status %s, rows %d", err, res.Status, res.Rows)
	}
	for _, want := range []string{"loaded 5,000 rows", ": interrupted\n", "this load cannot be resumed: it read stdin", "footprint: not measured (the load was interrupted)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in:\n%s", want, stderr.String())
		}
	}
}

// ... also before the load starts (waiting for the input's first bytes).
func TestStdinWaitEndsBeforeStart(t *testing.T) {
	cfg := baseConfig()
	cfg.Stdin = stalledStdin(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond) // either way an interrupt: before or during the read
		cancel()
	}()
	res, err := runBounded(t, ctx, cfg, newFake())
	if !errors.Is(err, errInterrupted) || res.Status != results.StatusInterrupted || res.Rows != 0 {
		t.Fatalf("err %v, status %s, rows %d", err, res.Status, res.Rows)
	}
}

// ... and when a worker fails while the reader waits.
func TestStdinWaitEndsAtWorkerError(t *testing.T) {
	f := newFake()
	f.fail = failAt(3)
	cfg := baseConfig()
	cfg.Stdin = stalledStdin(t, 5000)
	res, err := runBounded(t, context.Background(), cfg, f)
	if !errors.Is(err, errDisk) || res.Status != results.StatusFailed {
		t.Fatalf("err %v, status %s", err, res.Status)
	}
}

// An interrupted load from files says how to continue it: the exact
// --resume command with a results file, else why it cannot be resumed.
func TestInterruptedSaysHowToContinue(t *testing.T) {
	path, _ := ilpInput(t, 20000)
	dir := filepath.Join(t.TempDir(), "a dir")
	os.Mkdir(dir, 0o755)
	for _, resultsFile := range []string{filepath.Join(dir, "r.json"), ""} {
		f := newFake()
		f.block = make(chan struct{}) // each writer's second batch blocks
		var stderr bytes.Buffer
		cfg := baseConfig(path)
		cfg.Grace = 50 * time.Millisecond
		cfg.ResultsFile = resultsFile
		cfg.Stderr = &stderr
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for deadline := time.Now().Add(hangBound); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				f.mu.Lock()
				n := f.rows["cpu"] + f.rows["mem"] + f.rows["disk"]
				f.mu.Unlock()
				if n > 0 {
					break
				}
			}
			cancel()
		}()
		if _, err := runBounded(t, ctx, cfg, f); !errors.Is(err, errInterrupted) {
			t.Fatalf("err %v", err)
		}
		want := "to continue this load from where it stopped: load_fake --resume '" + resultsFile + "'\n"
		if resultsFile == "" {
			want = "this load cannot be resumed: it ran without --results-file"
		}
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in:\n%s", want, stderr.String())
		}
		if strings.Contains(stderr.String(), "the load failed") {
			t.Errorf("an interrupt called a failure:\n%s", stderr.String())
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/r.json": "/tmp/r.json",
		"/tmp/a b":    "'/tmp/a b'",
		"it's":        `'it'\''s'`,
		"":            "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A failed load with a journal says how to continue once the cause is
// fixed; one that failed on its input does not.
func TestFailedSaysHowToContinue(t *testing.T) {
	path, _ := ilpInput(t, 5000)
	f := newFake()
	f.fail = failAt(2)
	var stderr bytes.Buffer
	cfg := baseConfig(path)
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	cfg.Stderr = &stderr
	if _, err := runBounded(t, context.Background(), cfg, f); !errors.Is(err, errDisk) {
		t.Fatalf("err %v", err)
	}
	if want := "once the cause is fixed, continue this load from where it stopped with: load_fake --resume " + cfg.ResultsFile + "\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("no %q in:\n%s", want, stderr.String())
	}

	bad := filepath.Join(t.TempDir(), "bad.ilp")
	os.WriteFile(bad, []byte("cpu,host=a v=1 1\ncpu,host=a v= 2\n"), 0o644)
	cfg = baseConfig(bad)
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	stderr.Reset()
	cfg.Stderr = &stderr
	if _, err := runBounded(t, context.Background(), cfg, newFake()); err == nil {
		t.Fatal("a malformed line loaded")
	}
	if strings.Contains(stderr.String(), "--resume") {
		t.Errorf("a resume offered for a malformed input:\n%s", stderr.String())
	}
}
