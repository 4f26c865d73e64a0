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
	"github.com/tsload/tsload/internal/promtest"
)

// The loader's tests run against the real Prometheus of
// scripts/start_prometheus.sh (PROM_URL for another); they skip when it is
// down and fail when CI is set.

func TestMain_Load(t *testing.T) {
	base, db := promtest.RealDB(t)
	res := loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,h=a v=1 1451606400000000000\ncpu,h=b v=2 1451606400000000000\nmem,h=a f=1i 1451606401000000000\n", "",
		"--urls", base, "--db-name", db, "--verify", "content").Verified(t, 3)
	if res.Setup == nil || res.Setup.Settings["out_of_order_time_window"] != "100y" || res.Setup.Database != "db="+db {
		t.Errorf("setup %+v", res.Setup)
	}
	for metric, want := range map[string]string{"cpu_v": "1 2", "mem_f": "1"} {
		var got []string
		for _, s := range promtest.Export(t, base, db, metric) {
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

// TestMain_Refused: a value Prometheus cannot store as sent (a string, an
// integer float64 does not hold exactly) fails the run, names the line, and is not counted.
func TestMain_Refused(t *testing.T) {
	for name, bad := range map[string]string{"string": `s="x"`, "integer": "v=9007199254740993i"} {
		t.Run(name, func(t *testing.T) {
			base, db := promtest.RealDB(t)
			line := func(i int, v string) string {
				return fmt.Sprintf("cpu,h=h%d %s %d", i, v, 1451606400000000000+1000000*int64(i))
			}
			want := map[string]string{"string": "a string", "integer": "no exact float64"}[name]
			loadtest.RefusedBatch(t, spec(), []string{"--urls", base, "--db-name", db},
				func(i int) string { return line(i, fmt.Sprintf("v=%di", i)) }, line(57, bad),
				func(t testing.TB) int64 { n, _ := promtest.Rows(t, base, db, "cpu_v"); return n }, "line 58", want)
		})
	}
}

// TestCSV loads CSV into the real Prometheus as lines (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	owndatatest.CSVSuite{Spec: spec(), Args: loadtest.DBPerRun(promtest.RealURL(t), promtest.DropAtEnd)}.Run(t, "csv_")
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	base, db := promtest.RealDB(t)
	owndatatest.TSBSLines(t, spec(), "", "--urls", base, "--db-name", db)
}

// TestParquet loads the Parquet files every loader loads (turned into
// line protocol on the workers) and verifies the counts; pyarrow's sample
// has times with microseconds, the INT96 file with nanoseconds, which a
// sample's milliseconds would cut off: the load is refused, naming the line.
func TestParquet(t *testing.T) {
	base, db := promtest.RealDB(t)
	dir := t.TempDir()
	for _, c := range gentest.ParquetCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			resultsPath := filepath.Join(dir, c.Name+".json")
			args := []string{"load_prometheus", "--file", c.Path, "--workers", "2", "--batch-size", "300", "--results-file", resultsPath, "--urls", base, "--db-name", db}
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

func TestRefusedAtStart(t *testing.T) {
	loadtest.RefusedAtStart(t, spec(), func(port int) []string {
		return []string{"--urls", fmt.Sprintf("http://127.0.0.1:%d", port)}
	})
}

// TestErrorsNameFlags: pkg/target/prometheus names its Config fields; the
// command shows the flags instead.
func TestErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--precision", "n"}, `invalid --precision "n" (want ns, us, ms or s)`},
		{[]string{"--urls", " , "}, "no URL given (--urls)"},
		{[]string{"--gzip"}, "--gzip is not taken: remote write bodies are snappy-compressed"},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
