package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
)

// TestChDB loads generated devops data (cpu-only for Parquet) as ILP, CSV, pgcopy and Parquet
// into chDB inside the loader (--db-path; the wheel of scripts/install_chdb.sh) and verifies
// rows and content; then a time with a fraction of a second, which chDB's DateTime64(9)
// keeps. One data path at a time: chDB runs one per process.
func TestChDB(t *testing.T) {
	chdb := clickhousetest.ChDBDir(t)
	dir := t.TempDir()
	for _, c := range []struct {
		f       format.Format
		useCase string
		extra   []string
	}{
		{format.ILP, "devops", nil},
		{format.CSV, "devops", nil},
		{format.PGCopy, "devops", nil},
		{format.Parquet, "cpu-only", []string{"--table", "cpu"}},
	} {
		t.Run(c.f.String(), func(t *testing.T) {
			path, rows := gentest.GenFile(t, dir, c.useCase+"."+c.f.String(), c.useCase, c.f, 3, 20*time.Minute)
			resultsPath := filepath.Join(dir, c.f.String()+".json")
			args := append([]string{"load_clickhouse", "--file", path, "--results-file", resultsPath, "--batch-size", "100", "--workers", "2",
				"--db-path", filepath.Join(dir, "chdb-"+c.f.String()), "--chdb-dir", chdb, "--db-name", "bench", "--verify", "content"}, c.extra...)
			r := loadtest.RunCLI(t, spec(), args, resultsPath, "")
			res := r.Verified(t, rows)
			if res.Verify.Mode != "content" || res.Setup == nil || res.Setup.URL != "file:"+filepath.Join(dir, "chdb-"+c.f.String()) {
				t.Errorf("verify %q, setup %+v\n%s", res.Verify.Mode, res.Setup, r.Stderr)
			}
			if res.Cost == nil || res.Cost.Footprint == nil || res.Cost.Footprint.AfterLoadBytes <= 0 {
				t.Errorf("footprint %+v\n%s", res.Cost, r.Stderr)
			}
		})
	}
	t.Run("nanoseconds", func(t *testing.T) {
		in := "m,host=a v=1 1451606400000000001\nm,host=a v=2 1451606400500000000\n"
		loadtest.RunOnInput(t, spec(), "in.ilp", in, "", "--db-path", filepath.Join(dir, "chdb-ns"), "--chdb-dir", chdb,
			"--db-name", "bench", "--verify", "content").Verified(t, 2)
	})
}
