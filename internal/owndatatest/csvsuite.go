// Package owndatatest holds the real-server tests every loader runs on
// data tsload did not make itself in its own layout (issue 25).
package owndatatest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/usecase"
)

// CSVSuite loads CSV into a database of line protocol (QuestDB, InfluxDB,
// CnosDB: the rows are written as lines by the workers): tsload's own CSV
// files load with the same verified counts as its ILP files of the same
// data, and a CSV whose column changes type at row 50,000 fails naming that
// line, with nothing of the batch written.
type CSVSuite struct {
	Spec loadcli.Spec
	// Args are the target's flags for a run loading tables under prefix
	// (a database of its own, or the --table-prefix).
	Args func(t *testing.T, prefix string) []string
	// UseCases are the data sets compared (default cpu-only and devops,
	// a multi-table stream).
	UseCases []string
}

// Run runs the suite; prefix starts the tables' names.
func (s CSVSuite) Run(t *testing.T, prefix string) {
	t.Run("same-as-ilp", func(t *testing.T) { s.SameAsILP(t, prefix) })
	t.Run("type-change", func(t *testing.T) { s.typeChange(t, prefix) })
	t.Run("own-times", func(t *testing.T) { s.OwnTimes(t, prefix) })
}

// OwnTimes loads two CSVs of a table no use case knows whose time column
// is ts (not the first): one of times without an offset (2024-03-01
// 00:00:00, read as UTC) and one of epoch milliseconds (--time-unit ms),
// each with --verify content, which must pass: the loaders read the time
// column one way (csv.ParseTime) and the content query finds the
// database's time column whatever the CSV called it (issue 43 items 10
// and 11).
func (s CSVSuite) OwnTimes(t *testing.T, prefix string) {
	dir := t.TempDir()
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		time  func(time.Time) string
		extra []string
	}{
		{"naive", func(ts time.Time) string { return ts.Format("2006-01-02 15:04:05") }, nil},
		{"epochms", func(ts time.Time) string { return fmt.Sprint(ts.UnixMilli()) }, []string{"--time-unit", "ms"}},
	} {
		file := filepath.Join(dir, c.name+".csv")
		var b strings.Builder
		b.WriteString("device,ts,kwh\n")
		for i := 0; i < 100; i++ {
			fmt.Fprintf(&b, "d%d,%s,%d.5\n", i%4, c.time(start.Add(time.Duration(i)*time.Second)), i)
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		p := prefix + "ot_"
		args := append([]string{"--time-column", "ts", "--tags", "device", "--verify", "content"}, c.extra...)
		r, res := s.load(t, p, file, "", args...)
		if v := res.Verify; v == nil || !v.OK || v.Actual[p+c.name] != 100 {
			t.Fatalf("%s: verify %+v\n%s", c.name, res.Verify, r.Stderr)
		}
		if v := res.Verify; v.Mode != "content" || len(v.Content) != 1 || !v.Content[0].OK || v.Content[0].MinTime != start.UnixNano() {
			t.Fatalf("%s: content %+v, want OK from %d\n%s", c.name, v.Content, start.UnixNano(), r.Stderr)
		}
	}
}

func (s CSVSuite) load(t *testing.T, prefix, file, wantErr string, extra ...string) (loadtest.CLIRun, results.Results) {
	t.Helper()
	resultsPath := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{s.Spec.Name, "--file", file, "--results-file", resultsPath, "--table-prefix", prefix}, s.Args(t, prefix)...)
	r := loadtest.RunCLI(t, s.Spec, append(args, extra...), resultsPath, wantErr)
	return r, loadtest.ReadResults(t, resultsPath)
}

// SameAsILP loads the same ten minutes of cpu-only data (and of devops: a
// multi-table CSV stream) as ILP and as CSV, each under a prefix of its
// own, and compares the verified counts per table.
func (s CSVSuite) SameAsILP(t *testing.T, prefix string) {
	dir := t.TempDir()
	ucs := s.UseCases
	if ucs == nil {
		ucs = []string{usecase.CPUOnly, usecase.DevOps}
	}
	for _, uc := range ucs {
		ilpFile, rows := gentest.GenFile(t, dir, uc+".ilp", uc, format.ILP, 2, 10*time.Minute)
		csvFile, csvRows := gentest.GenFile(t, dir, uc+".csv", uc, format.CSV, 2, 10*time.Minute)
		if rows != csvRows {
			t.Fatalf("%s: %d ILP rows, %d CSV rows", uc, rows, csvRows)
		}
		var counts [2]map[string]int64
		for i, file := range []string{ilpFile, csvFile} {
			p := fmt.Sprintf("%s%s%d_", prefix, strings.ReplaceAll(uc, "-", ""), i)
			r, res := s.load(t, p, file, "")
			if res.Verify == nil || !res.Verify.OK {
				t.Fatalf("%s: verify %+v\n%s", file, res.Verify, r.Stderr)
			}
			counts[i] = map[string]int64{}
			for name, n := range res.Verify.Actual {
				counts[i][strings.TrimPrefix(name, p)] = n
			}
		}
		total := int64(0)
		for name, n := range counts[0] {
			total += n
			if counts[1][name] != n {
				t.Errorf("%s: table %s: %d rows from ILP, %d from CSV", uc, name, n, counts[1][name])
			}
		}
		if total != rows || len(counts[0]) != len(counts[1]) {
			t.Errorf("%s: ILP %v, CSV %v, want %d rows", uc, counts[0], counts[1], rows)
		}
	}
}

// typeChange: a CSV of a table no use case knows whose value column holds
// numbers for 49,999 rows and a word in row 50,000 (line 50,001).
func (s CSVSuite) typeChange(t *testing.T, prefix string) {
	file := filepath.Join(t.TempDir(), "meter.csv")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "time,device,kwh")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 50000; i++ {
		v := fmt.Sprintf("%d.25", i)
		if i == 50000 {
			v = "broken"
		}
		fmt.Fprintf(w, "%s,d%d,%s\n", start.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i%10, v)
	}
	w.Flush()
	f.Close()
	// One worker: the batches before the bad one are all written first.
	r, res := s.load(t, prefix+"tc_", file, "line 50001", "--batch-size", "10000", "--workers", "1")
	if !strings.Contains(r.Err.Error(), file+`: record 50000 (line 50001, byte offset `) || !strings.Contains(r.Err.Error(), `column kwh: "broken" is not a finite number`) {
		t.Fatalf("err = %v", r.Err)
	}
	if res.Rows != 40000 {
		t.Fatalf("%d rows acknowledged, want the 4 whole batches before the bad one (40000)", res.Rows)
	}
}
