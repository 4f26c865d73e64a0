package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/owndatatest"
	"github.com/tsload/tsload/pkg/format"
)

// The loader's tests run against the real ClickHouse of scripts/start_clickhouse.sh
// (CLICKHOUSE_ADDR for another); they skip when it is down and fail when CI is set.

// TestFormats loads generated devops data (nine tables) as ILP, CSV, pgcopy and Parquet
// (cpu-only: Parquet is one table a file) and verifies rows and content.
func TestFormats(t *testing.T) {
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
			addr, db := clickhousetest.RealDB(t)
			path, rows := gentest.GenFile(t, dir, c.useCase+"."+c.f.String(), c.useCase, c.f, 3, 20*time.Minute)
			resultsPath := filepath.Join(dir, c.f.String()+".json")
			args := append([]string{"load_clickhouse", "--file", path, "--results-file", resultsPath, "--batch-size", "100", "--workers", "2",
				"--host", addr, "--db-name", db, "--verify", "content"}, c.extra...)
			r := loadtest.RunCLI(t, spec(), args, resultsPath, "")
			res := r.Verified(t, rows)
			if res.Verify.Mode != "content" {
				t.Errorf("verify mode %q, want content\n%s", res.Verify.Mode, r.Stderr)
			}
			if res.Cost == nil || res.Cost.Footprint == nil || res.Cost.Footprint.AfterLoadBytes <= 0 {
				t.Errorf("footprint %+v\n%s", res.Cost, r.Stderr)
			}
		})
	}
}

// TestSubSecondRefused: a server without DateTime64 keeps whole seconds: a time with a
// fraction of a second fails the run, naming the line, and nothing of its batch is counted.
// (On a server with DateTime64 the same file loads.)
func TestSubSecondRefused(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	in := "m,host=a v=1 1451606400000000000\nm,host=a v=2 1451606400500000000\n"
	if !clickhousetest.HasDateTime64(t, addr) {
		loadtest.RunOnInput(t, spec(), "in.ilp", in, "input line 2 or after: time 2016-01-01T00:00:00.5Z has a fraction of a second",
			"--host", addr, "--db-name", db)
		if n, _ := clickhousetest.Rows(t, addr, db, "m"); n != 0 {
			t.Errorf("the table holds %d rows, want 0", n)
		}
		return
	}
	loadtest.RunOnInput(t, spec(), "in.ilp", in, "", "--host", addr, "--db-name", db).Verified(t, 2)
}

// TestRefused: a batch the loader refuses (a float into an integer column) fails the run,
// names the line, and is not counted.
func TestRefused(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	line := func(i int, v string) string {
		return fmt.Sprintf("m,host=h%d v=%s %d", i, v, 1451606400000000000+int64(i)*1e9)
	}
	loadtest.RefusedBatch(t, spec(), []string{"--host", addr, "--db-name", db},
		func(i int) string { return line(i, fmt.Sprintf("%di", i)) }, line(57, "1.5"),
		func(t testing.TB) int64 { n, _ := clickhousetest.Rows(t, addr, db, "m"); return n }, "line 58", `field "v": a float into a int8 column`)
}

// TestCSV: tsload's own CSV loads with the same verified counts as its ILP of the same data,
// and CSVs whose time column is not the first, of times without an offset or of epoch
// milliseconds, verify their content (owndatatest.CSVSuite; its type-change case is for the
// loaders that write CSV as lines).
func TestCSV(t *testing.T) {
	s := owndatatest.CSVSuite{Spec: spec(), Args: clickhousetest.Args}
	t.Run("same-as-ilp", func(t *testing.T) { s.SameAsILP(t, "csv_") })
	t.Run("own-times", func(t *testing.T) { s.OwnTimes(t, "csv_") })
}

func TestRefusedAtStart(t *testing.T) {
	loadtest.RefusedAtStart(t, spec(), func(port int) []string { return []string{"--host", fmt.Sprintf("127.0.0.1:%d", port)} })
}

// TestErrorsNameFlags: pkg/target/clickhouse names its Config fields; the command shows the
// flags instead.
func TestErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--host", "nohostport"}, "invalid --host"},
		{[]string{"--db-name", "a-b"}, "invalid --db-name"},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
