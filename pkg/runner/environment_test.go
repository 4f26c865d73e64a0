package runner

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/envinfo"
)

// versionTarget is the fake database that reports a server version.
type versionTarget struct {
	*fakeTarget
	version string
	err     error
}

func (v versionTarget) ServerVersion(ctx context.Context) (string, error) { return v.version, v.err }

func TestEnvironmentRecorded(t *testing.T) {
	path, _ := ilpInput(t, 1200)
	cfg := baseConfig(path)
	res, err := Run(context.Background(), cfg, versionTarget{fakeTarget: newFake(), version: " FakeDB 1.2.3\n"})
	if err != nil {
		t.Fatal(err)
	}
	env := res.Environment
	if env == nil {
		t.Fatal("no environment in the results")
	}
	if env.Server.Version != "FakeDB 1.2.3" || env.Server.Error != "" {
		t.Errorf("server %+v", env.Server)
	}
	if env.Machine.Cores != runtime.NumCPU() || env.Machine.OS == "" || !strings.Contains(env.Tsload, runtime.Version()) {
		t.Errorf("machine %+v build %q", env.Machine, env.Tsload)
	}
	st, _ := os.Stat(path)
	d := env.Dataset
	if d.Source != "input" || d.Format != "ilp" || d.Rows != 1200 || d.Bytes != res.Bytes || d.FileBytes != st.Size() || d.Compression != "none" {
		t.Errorf("dataset seen %+v (file %d bytes)", d, st.Size())
	}

	// With generate_data's description beside the file, the dataset is that.
	seed := uint64(7)
	if err := envinfo.WriteDataset(path, envinfo.Dataset{UseCase: "cpu-only", Scale: 3, Seed: &seed, Rows: 1200, Format: "ilp"}); err != nil {
		t.Fatal(err)
	}
	res, err = Run(context.Background(), cfg, versionTarget{fakeTarget: newFake(), err: errors.New("boom")})
	if err != nil {
		t.Fatal(err)
	}
	d = res.Environment.Dataset
	if d.Source != "generate_data" || d.UseCase != "cpu-only" || d.Scale != 3 || d.Seed == nil || *d.Seed != 7 || d.FileBytes != st.Size() {
		t.Errorf("dataset described %+v", d)
	}
	if s := res.Environment.Server; s.Version != "" || !strings.Contains(s.Error, "boom") {
		t.Errorf("server %+v, want the error", s)
	}

	// A target that cannot tell, and a run that does not connect.
	res, _ = Run(context.Background(), cfg, newFake())
	if s := res.Environment.Server; s.Version != "" || !strings.Contains(s.Error, "does not report") {
		t.Errorf("server %+v", s)
	}
	cfg.DoLoad = false
	res, _ = Run(context.Background(), cfg, nil)
	if s := res.Environment.Server; !strings.Contains(s.Error, "do-load=false") {
		t.Errorf("server %+v", s)
	}
}
