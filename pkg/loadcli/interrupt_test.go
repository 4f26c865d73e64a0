//go:build linux

package loadcli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangBound only detects a hang: a loader that stops does so in well
// under a second, a hung one never does.
const hangBound = time.Minute

// startLoader starts the test binary as load_slow (TestMain) with args,
// stdin and extra environment; stderr is collected.
func startLoader(t *testing.T, stdin *os.File, env []string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), env...), "LOADCLI_TEST_ARGS="+strings.Join(append([]string{"load_slow"}, args...), "\x1f"))
	cmd.Stdin = stdin
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stderr
}

// waitExit waits for cmd, killing it (and failing) when it hangs.
func waitExit(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangBound):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the loader did not stop within %s of the signal; stderr:\n%s", hangBound, stderr.String())
		return nil
	}
}

// waitFor waits (bounded) until stderr holds s.
func waitFor(t *testing.T, stderr *syncBuffer, s string) {
	t.Helper()
	for deadline := time.Now().Add(hangBound); !strings.Contains(stderr.String(), s); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr:\n%s", s, stderr.String())
		}
	}
}

// TestInterruptStdinTerminal: a loader reading a terminal that types
// nothing more stops on SIGINT or SIGTERM with the interrupted summary
// (issue 43.7: the read of the terminal held it until kill -9), both
// while it waits for the input's first bytes and while loading.
func TestInterruptStdinTerminal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		typed int // lines typed before the signal
		sig   syscall.Signal
		want  string
	}{
		{"nothing typed", 0, syscall.SIGTERM, "load_slow: interrupted (terminated signal received) while reading the input's start: nothing was sent"},
		{"loading", 5000, syscall.SIGINT, "load_slow: interrupted (interrupt signal received): stopped reading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, tty := openPTY(t)
			// More than the format detection's look ahead (64 KiB), so that
			// the load starts; written as the loader reads.
			go master.Write(bytes.Repeat([]byte("cpu,host=a v=1 1\n"), tc.typed))
			cmd, stderr := startLoader(t, tty, nil, "--reporting-period", "50ms", "--batch-size", "1000",
				"--results-file", filepath.Join(t.TempDir(), "r.json"))
			waitFor(t, stderr, "reading stdin")
			if tc.typed > 0 {
				waitFor(t, stderr, " 5,000 rows\n") // loaded what was typed: the reader waits on the terminal
			}
			cmd.Process.Signal(tc.sig)
			err := waitExit(t, cmd, stderr)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			want := []string{tc.want}
			if tc.typed > 0 {
				want = append(want, "loaded 5,000 rows", ": interrupted\n")
			}
			for _, w := range want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("no %q in stderr:\n%s", w, stderr.String())
				}
			}
		})
	}
}

// TestInterruptStdinPipe: the same with a pipe whose writer stalls (a
// producer that stopped writing without closing it).
func TestInterruptStdinPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd, stderr := startLoader(t, pr, nil, "--reporting-period", "50ms", "--batch-size", "1000")
	pr.Close()
	go pw.Write(bytes.Repeat([]byte("cpu,host=a v=1 1\n"), 5000)) // past the format detection's look ahead (64 KiB)
	waitFor(t, stderr, " 5,000 rows\n")
	cmd.Process.Signal(syscall.SIGINT)
	err = waitExit(t, cmd, stderr)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "load_slow: interrupted (interrupt signal received)") {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
}

// TestSecondInterrupt: a second Ctrl-C exits at once, while the first
// one's stop still waits for a write that does not end.
func TestSecondInterrupt(t *testing.T) {
	input := filepath.Join(t.TempDir(), "d.ilp")
	os.WriteFile(input, bytes.Repeat([]byte("cpu,host=a v=1 1\n"), 1000), 0o644)
	cmd, stderr := startLoader(t, nil, []string{"LOADCLI_TEST_HANG=1"}, "--file", input, "--reporting-period", "50ms", "--batch-size", "10")
	waitFor(t, stderr, "rows/s") // running; the writers hang
	cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, stderr, "Ctrl-C again") // the first one was taken
	cmd.Process.Signal(syscall.SIGINT)
	err := waitExit(t, cmd, stderr)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 || !strings.Contains(stderr.String(), "second interrupt signal: exiting at once") {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
}
