//go:build linux

package loadcli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestStdinTerminal: a loader started at a terminal without --file says
// once on stderr that it reads stdin (it used to wait in silence), then
// reads what is typed up to Ctrl-D.
func TestStdinTerminal(t *testing.T) {
	master, tty := openPTY(t)
	// Typed: one line, then Ctrl-D at the start of the next.
	if _, err := master.Write([]byte("cpu,host=a v=1 1\n\x04")); err != nil {
		t.Fatal(err)
	}
	calls := 0
	var stderr bytes.Buffer
	if err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--do-load=false"}, tty, &stderr); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr.String(), "reading stdin"); n != 1 || !strings.Contains(stderr.String(), "read 1 rows") {
		t.Errorf("%d notes, stderr:\n%s", n, stderr.String())
	}
	// With --file, or stdin not a terminal, nothing is said.
	stderr.Reset()
	if err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--do-load=false", "--file", writeILP(t)}, tty, &stderr); err != nil ||
		strings.Contains(stderr.String(), "reading stdin") {
		t.Errorf("with --file: %v\n%s", err, stderr.String())
	}
}
