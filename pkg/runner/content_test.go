package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
)

// contentFake is the fake target claiming content fingerprints: for the
// cases where the runner must not ask for them.
type contentFake struct{ *fakeTarget }

func (contentFake) Content(context.Context, []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	return nil, errors.New("Content must not be asked here")
}

// TestContentFallsBackToCount: where content cannot be verified (a target
// that cannot fingerprint; a looped load, even on one that can),
// --verify content says why on stderr and in the results, and verifies
// the counts (of all passes; a count mismatch still fails).
func TestContentFallsBackToCount(t *testing.T) {
	path, _ := ilpInput(t, 300)
	loopPath, n := loopInput(t, format.ILP)
	looped := baseConfig(loopPath)
	looped.BatchSize, looped.Loop, looped.Limit = 100, true, 2*n
	for _, tc := range []struct {
		name       string
		cfg        Config
		target     func(*fakeTarget) load.Target
		note, says string
	}{
		{"no fingerprints", baseConfig(path), func(f *fakeTarget) load.Target { return f },
			"content not verified", "content verification is not possible"},
		{"loop", looped, func(f *fakeTarget) load.Target { return contentFake{f} },
			"looped load", "content verification is not possible (a looped load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.VerifyContent = true
			var stderr bytes.Buffer
			cfg.Stderr = &stderr
			res, err := Run(context.Background(), cfg, tc.target(newFake()))
			if err != nil || !res.Verify.OK || res.Verify.Mode != "count" || !strings.Contains(res.Verify.Note, tc.note) {
				t.Fatalf("err %v verify %+v", err, res.Verify)
			}
			if !strings.Contains(stderr.String(), tc.says) {
				t.Fatalf("stderr does not say why content was not verified:\n%s", stderr.String())
			}
			f := newFake()
			f.countErr = -1
			cfg.Stderr = &bytes.Buffer{}
			if _, err := Run(context.Background(), cfg, tc.target(f)); err == nil {
				t.Fatal("a count mismatch passed under --verify content")
			}
		})
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
