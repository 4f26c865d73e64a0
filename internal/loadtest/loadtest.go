// Package loadtest holds the helpers that the loaders' tests share: fault
// proxies in front of a server and reading a run's results file back. It
// is imported by tests only.
package loadtest

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/pkg/results"
)

// Proxy starts a fault proxy in front of addr (host:port, or a URL whose
// host is taken) and closes it when the test ends.
func Proxy(t testing.TB, addr string) *faultproxy.Proxy {
	t.Helper()
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil {
			t.Fatal(err)
		}
		addr = u.Host
	}
	p, err := faultproxy.New(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// AfterBytes waits until p has passed n bytes upstream; false when stop
// closed first.
func AfterBytes(p *faultproxy.Proxy, n int64, stop chan struct{}) bool {
	for p.Stats().UpstreamBytes < n {
		select {
		case <-stop:
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return true
}

// tempFile writes content to a file name in a temporary directory of the
// test and returns its path.
func tempFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadResults reads the results file a run wrote.
func ReadResults(t testing.TB, path string) results.Results {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res results.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	return res
}
