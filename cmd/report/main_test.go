package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestApp(t *testing.T) {
	compare, _ := filepath.Glob("../../pkg/report/testdata/compare/*.json")
	if len(compare) == 0 {
		t.Fatal("no fixtures")
	}
	dir := t.TempDir()
	tests := []struct {
		args    []string
		want    string // in stdout
		wantErr string
	}{
		{append([]string{"report", "table", "--group", "target", "--format", "csv"}, compare...), "cnosdb,1,failed,failed", ""},
		{append([]string{"report", "table", "--group", "target"}, compare...), "| questdb | 1 | 900,000 |", ""},
		{append([]string{"report", "bars", "--out", dir, "--group", "target", "--metric", "metrics"}, compare...), "bars_metrics.svg", ""},
		{append([]string{"report", "plot", "--out", dir}, compare[0]), ".rate.png", ""},
		{append([]string{"report", "merge"}, compare[1], compare[1]), `"shards": 2`, ""},
		{append([]string{"report", "html", "--out", filepath.Join(dir, "r", "report.html")}, compare...), filepath.Join(dir, "r", "report.html"), ""},
		{append([]string{"report", "html", "--out", "-", "--group", "target", "--title", "Four databases"}, compare...), "<h1>Four databases</h1>", ""},
		{append([]string{"report", "html", "--out", "-", "--group", "size"}, compare...), "", "unknown group key"},
		{[]string{"report", "table"}, "", "no results files"},
		{append(append([]string{"report", "table"}, compare...), "--format", "csv"), "", "flags go before the results files"},
		{append([]string{"report", "table", "--group", "size"}, compare...), "", "unknown group key"},
		{append([]string{"report", "plot", "--out", dir, "--metric", "bytes"}, compare...), "", "unknown metric"},
		{append([]string{"report", "bars"}, compare...), "", "Required flag \"out\""},
		// A misspelt command or flag: one line (it printed the whole help, and "tabel" exited 3).
		{append([]string{"report", "tabel"}, compare...), "", `unknown command "tabel" (want table, plot, bars, html, merge; see report --help)`},
		{append([]string{"report", "table", "--grup", "target"}, compare...), "", "unknown flag --grup: did you mean --group? (see report table --help)"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := newApp(&out).Run(tt.args)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: error %v, want %q", tt.args[:3], err, tt.wantErr)
			}
			if strings.Contains(out.String(), "USAGE") {
				t.Errorf("%v: the whole help printed:\n%s", tt.args[:3], out.String())
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.args[:3], err)
			continue
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%v: output lacks %q:\n%s", tt.args[:3], tt.want, out.String())
		}
	}
}

// TestRunMatrixScript runs scripts/run_matrix.sh with a stand-in loader
// (testdata/load_fake) and the real report binary: successful cells carry
// numbers, a cell whose loader failed with a results file and one whose
// loader died without one both read "failed", and every output is written.
func TestRunMatrixScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	fake, err := os.ReadFile("testdata/load_fake")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "load_fake"), fake, 0o755); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	input := filepath.Join(out, "data.ilp")
	os.WriteFile(input, []byte("cpu usage=1 1\n"), 0o644)
	cmd := exec.Command("bash", "../../scripts/run_matrix.sh", "--loader", "load_fake", "--file", input,
		"--batch-sizes", "3000,1000", "--workers", "2,4", "--repeat", "2", "--out", out, "--", "--verify=true")
	cmd.Env = append(os.Environ(), "TSLOAD_BIN="+bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit %v, want status 3 (some runs failed)\n%s", err, stderr.String())
	}
	table := stdout.String()
	for _, want := range []string{
		"| 1000 | 2 | 2 | 2,000 | 2,000 | 20,000 |",
		"| 1000 | 4 | 2 (0 of 2 ok) | failed | failed |",
		"| 3000 | 2 | 2 | 6,000 |",
		"| 3000 | 4 | 2 (0 of 2 ok) | failed |",
		"b1000_w4_r1.json: load_fake exited with status 2: load_fake: panic: simulated crash",
		`b3000_w4_r2.json: write batch 2: server said "no"`,
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "table.md"))
	if string(md) != table {
		t.Error("table.md differs from stdout")
	}
	csv, _ := os.ReadFile(filepath.Join(out, "table.csv"))
	if !strings.Contains(string(csv), "1000,4,2,failed,failed") {
		t.Errorf("table.csv:\n%s", csv)
	}
	for _, f := range []string{"bars_rows.png", "bars_rows.svg", "bars_metrics.png", "plots/b1000_w2_r1.rate.png", "plots/b1000_w4_r2.rate.svg", "logs/b1000_w4_r1.log"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Bad usage fails before running anything.
	bad := exec.Command("bash", "../../scripts/run_matrix.sh", "--loader", "load_fake", "--file", input, "--batch-sizes", "x", "--workers", "2", "--out", out)
	bad.Env = cmd.Env
	if err := bad.Run(); err == nil {
		t.Error("batch size x accepted")
	}
}
