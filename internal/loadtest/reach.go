package loadtest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/results"
)

// RefusedAtStart runs the loader of spec with args, which point it at
// 127.0.0.1:port (FreePort: nothing listens there), on a one-row input.
// The run must fail within a second (before: load_questdb retried the
// refused connection 20 times over 56 s), say that nothing listens there,
// retry nothing, and still write its results file.
func RefusedAtStart(t *testing.T, spec loadcli.Spec, args func(port int) []string) {
	t.Helper()
	dir := t.TempDir()
	resultsPath := filepath.Join(dir, "r.json")
	var stderr bytes.Buffer
	argv := append(append([]string{spec.Name}, args(FreePort(t))...), "--results-file", resultsPath)
	t0 := time.Now()
	err := loadcli.Run(context.Background(), spec, argv, strings.NewReader("refused,host=a v=1 1\n"), &stderr)
	took := time.Since(t0)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "nothing listens there: start the server") {
		t.Fatalf("err %v, want a refused connection with a hint\n%s", err, stderr.String())
	}
	if took > time.Second {
		t.Errorf("failed after %s, want under a second", took)
	}
	if strings.Contains(stderr.String(), "retrying") {
		t.Errorf("a refused connection at the start was retried:\n%s", stderr.String())
	}
	if r := ReadResults(t, resultsPath); r.Status != results.StatusFailed || r.Retries != 0 || !strings.Contains(r.Error, "connection refused") {
		t.Errorf("results: status %s retries %d error %q", r.Status, r.Retries, r.Error)
	}
}
