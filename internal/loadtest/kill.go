package loadtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// Private is a server of a test's own (its own data and ports) for the
// scenario that kills it: the shared servers other tests use are never
// killed.
type Private struct {
	// Upstream is the server's address (host:port or a URL).
	Upstream string
	// New returns the target writing through proxy (host:port), and the
	// lifecycle options of a fresh table.
	New func(t *testing.T, proxy string, requestTimeout time.Duration) (load.Target, load.PrepareOptions)
	// Rows returns what the server holds in table: rows and distinct
	// (timestamp, host) keys, read directly.
	Rows func(t *testing.T, tg load.Target, table string) (rows, keys int64)
	// Kill stops the server with SIGKILL (no shutdown of any kind) and
	// returns once it is gone; Start starts it again on its data and
	// returns once it answers. Both may be called from any goroutine.
	Kill, Start func() error
}

// killRows is the size of the kill scenario's load: large enough that the
// kill (after killAfter bytes) lands mid-load, small enough for CI.
const (
	killRows  = 100000
	killAfter = 512 << 10
)

// killed loads killRows rows through a proxy into a private server, which
// is killed with SIGKILL once killAfter bytes went through and started
// again half a second later; the load must end exact: every row once,
// verified, although batches were cut and, on a server that answers before
// its data is durable, acknowledged ones lost.
func (s FaultSuite) killed(t *testing.T, table string) {
	if s.Private == nil {
		t.Skip("no private server for this target")
	}
	if testing.Short() {
		t.Skip("-short: no server kill")
	}
	pv := s.Private(t)
	p := Proxy(t, pv.Upstream)
	path := faultLines(t, table, killRows, s.Step, nil)
	stop := make(chan struct{})
	killed := make(chan error, 1)
	var down time.Duration
	go func() {
		if !AfterBytes(p, killAfter, stop) {
			killed <- fmt.Errorf("the load ended before the server was killed (%d bytes sent)", p.Stats().UpstreamBytes)
			return
		}
		t0 := time.Now()
		if err := pv.Kill(); err != nil {
			killed <- fmt.Errorf("kill: %w", err)
			return
		}
		time.Sleep(500 * time.Millisecond)
		err := pv.Start()
		down = time.Since(t0)
		killed <- err
	}()
	tg, prep := pv.New(t, p.Addr(), 10*time.Second)
	cfg := FaultConfig(path, 1000, 2)
	cfg.RetryTimeout = 3 * time.Minute // a JVM restarting on a busy machine
	cfg.Prepare = prep
	cfg.Loader, cfg.Target = s.Loader, strings.TrimPrefix(s.Loader, "load_")
	f := RunLoad(t, cfg, tg)
	close(stop)
	if err := <-killed; err != nil {
		t.Fatalf("%v\nload: %v\n%s", err, f.Err, f.Log)
	}
	f.Exact(t, killRows)
	n, keys := pv.Rows(t, tg, table)
	if n != killRows || keys != killRows {
		t.Fatalf("the server holds %d rows, %d distinct, want %d\n%s", n, keys, killRows, f.Log)
	}
	if f.Res.Retries == 0 {
		t.Errorf("no retry across the kill:\n%s", f.Log)
	}
	t.Logf("killed with SIGKILL after %d bytes, back after %s: %d retries, %d rows acknowledged, the server holds %d (%d distinct)",
		int64(killAfter), down.Round(time.Millisecond), f.Res.Retries, f.Res.Rows, n, keys)
}

// FreePort returns a TCP port free on 127.0.0.1 now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// RepoRoot is the directory of go.mod above the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
