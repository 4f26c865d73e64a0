package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestContentFallsBackToCount: on a target that cannot fingerprint,
// --verify content says so on stderr and in the results, and verifies
// the counts (a count mismatch still fails).
func TestContentFallsBackToCount(t *testing.T) {
	path, _ := ilpInput(t, 300)
	f := newFake()
	cfg := baseConfig(path)
	cfg.VerifyContent = true
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, f)
	if err != nil || !res.Verify.OK || res.Verify.Mode != "count" || !strings.Contains(res.Verify.Note, "content not verified") {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
	if !strings.Contains(stderr.String(), "content verification is not possible") {
		t.Fatalf("stderr does not say content was not verified:\n%s", stderr.String())
	}
	f = newFake()
	f.countErr = -1
	cfg.Stderr = &bytes.Buffer{}
	if _, err := Run(context.Background(), cfg, f); err == nil {
		t.Fatal("a count mismatch passed under --verify content")
	}
}
