package runner

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
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

// TestContentDatasetFingerprint: a file whose dataset description carries
// its fingerprint (generate_data --fingerprint) is checked against it when
// read with content verification; a digit changed on disk (same size, so
// the description still applies) is caught before anything is sent with
// --do-load=false.
func TestContentDatasetFingerprint(t *testing.T) {
	dir := t.TempDir()
	path, _ := gentest.GenFile(t, dir, "cpu.ilp", usecase.CPUOnly, format.ILP, 3, time.Hour)
	acc, err := split.FingerprintFile(path, usecase.LookupTable)
	if err != nil {
		t.Fatal(err)
	}
	if err := envinfo.WriteDataset(path, envinfo.Dataset{Fingerprint: envinfo.FingerprintOf(acc.Result())}); err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig(path)
	cfg.DoLoad, cfg.VerifyContent = false, true
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	if _, err := Run(context.Background(), cfg, nil); err != nil || !strings.Contains(stderr.String(), "the input matches") {
		t.Fatalf("err %v\n%s", err, stderr.String())
	}
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("usage_user=")) + len("usage_user=")
	data[i] = '0' + (data[i]-'0'+1)%10
	os.WriteFile(path, data, 0o644)
	cfg.Stderr = &bytes.Buffer{}
	_, err = Run(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `field "usage_user": sum expected`) || !strings.Contains(err.Error(), "dataset.json") {
		t.Fatalf("a damaged file passed: %v", err)
	}
}
