package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/owndatatest"
	"github.com/tsload/tsload/internal/vmtest"
)

// The loader's tests run against the real VictoriaMetrics of
// scripts/start_victoriametrics.sh (VM_URL for another); they skip when it
// is down and fail when CI is set.

func TestMain_Load(t *testing.T) {
	base, db := vmtest.RealDB(t)
	res := loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,h=a v=1 1451606400000000000\ncpu,h=b v=2 1451606400000000000\nmem,h=a f=1i 1451606401000000000\n", "",
		"--urls", base, "--db-name", db).Verified(t, 3)
	if res.Setup == nil || res.Setup.Settings["dedup.minScrapeInterval"] != "1ms" || res.Setup.Database != "db="+db {
		t.Errorf("setup %+v", res.Setup)
	}
	for metric, want := range map[string]string{"cpu_v": "1 2", "mem_f": "1"} {
		var got []string
		for _, s := range vmtest.Export(t, base, db, metric) {
			for i, v := range s.Values {
				if s.Timestamps[i] != 1451606400000+1000*int64(strings.Count(metric, "mem")) {
					t.Errorf("%s: timestamp %d ms", metric, s.Timestamps[i])
				}
				got = append(got, fmt.Sprint(v))
			}
		}
		if slices.Sort(got); strings.Join(got, " ") != want {
			t.Errorf("%s: %v, want %s", metric, got, want)
		}
	}
}

// TestMain_Refused: a batch the server refuses (an integer out of range)
// fails the run, names the line, and is not counted.
func TestMain_Refused(t *testing.T) {
	base, db := vmtest.RealDB(t)
	line := func(i int, v string) string {
		return fmt.Sprintf("cpu,h=h%d v=%si %d", i, v, 1451606400000000000+1000000*int64(i))
	}
	loadtest.RefusedBatch(t, spec(), []string{"--urls", base, "--db-name", db},
		func(i int) string { return line(i, fmt.Sprint(i)) }, line(57, "99999999999999999999"),
		func(t testing.TB) int64 { n, _ := vmtest.Rows(t, base, db, "cpu_v"); return n }, "line 58", "has no exact float64")
}

// TestCSV loads CSV into the real VictoriaMetrics as lines (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	owndatatest.CSVSuite{Spec: spec(), Args: loadtest.DBPerRun(vmtest.RealURL(t), vmtest.DropAtEnd)}.Run(t, "csv_")
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	base, db := vmtest.RealDB(t)
	owndatatest.TSBSLines(t, spec(), "", "--urls", base, "--db-name", db)
}

// TestParquet loads the Parquet files every loader loads (turned into
// line protocol on the workers) and verifies the counts; pyarrow's sample
// has times with microseconds, the INT96 file with nanoseconds, which
// VictoriaMetrics would cut off: the load is refused, naming the line.
func TestParquet(t *testing.T) {
	base, db := vmtest.RealDB(t)
	dir := t.TempDir()
	for _, c := range gentest.ParquetCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			resultsPath := filepath.Join(dir, c.Name+".json")
			args := []string{"load_victoriametrics", "--file", c.Path, "--workers", "2", "--batch-size", "300", "--results-file", resultsPath, "--urls", base, "--db-name", db}
			if c.Table == "sample" || c.Table == "int96" {
				loadtest.RunCLI(t, spec(), args, resultsPath, "has a part finer than a millisecond")
				return
			}
			r := loadtest.RunCLI(t, spec(), args, resultsPath, "")
			res := loadtest.ReadResults(t, resultsPath)
			if res.Format != "parquet" || res.Rows != c.Rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[c.Table] != c.Rows {
				t.Fatalf("format %s rows %d/%d verify %+v\n%s", res.Format, res.Rows, c.Rows, res.Verify, r.Stderr)
			}
		})
	}
}

// TestRate runs a paced and a stepped load (loadtest.PacedRuns), each
// into a db label of its own.
func TestRate(t *testing.T) {
	loadtest.PacedRuns(t, spec(), "rate", loadtest.DBPerRun(vmtest.RealURL(t), vmtest.DropAtEnd))
}

// TestRefusedInputDropsNothing: a pgcopy file with --drop-db leaves the
// db label's series as they were.
func TestRefusedInputDropsNothing(t *testing.T) {
	base, db := vmtest.RealDB(t)
	loadtest.RefusedInput{
		Spec:    spec(),
		Args:    []string{"--urls", base, "--db-name", db},
		Table:   "refused",
		WantErr: "takes line protocol here, not pgcopy",
		PGCopy:  true,
		Count: func(t testing.TB) int64 {
			n, _ := vmtest.Rows(t, base, db, "refused_usage")
			return n
		},
	}.Run(t)
}

func TestRefusedAtStart(t *testing.T) {
	loadtest.RefusedAtStart(t, spec(), func(port int) []string {
		return []string{"--urls", fmt.Sprintf("http://127.0.0.1:%d", port)}
	})
}

// TestErrorsNameFlags: pkg/target/victoriametrics names its Config
// fields; the command shows the flags instead.
func TestErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--precision", "n"}, `invalid --precision "n" (want ns, us, ms or s)`},
		{[]string{"--urls", " , "}, "no URL given (--urls)"},
		{[]string{"--gzip", "--gzip-level", "10"}, "invalid --gzip-level 10 (want 1-9)"},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
