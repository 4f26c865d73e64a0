package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/envinfo"
)

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing seed", []string{}, "--seed is required"},
		{"unknown use case", []string{"--seed", "1", "--use-case", "nope"}, "unknown use case"},
		{"unknown format", []string{"--seed", "1", "--format", "json"}, "unknown format"},
		{"end before start", []string{"--seed", "1", "--timestamp-end", "2015-01-01"}, "not after start"},
		{"zero interval", []string{"--seed", "1", "--log-interval", "0s"}, "must be positive"},
		{"bad interval", []string{"--seed", "1", "--log-interval", "often"}, "--log-interval"},
		{"bad timestamp", []string{"--seed", "1", "--timestamp-start", "2016-1-1"}, "--timestamp-start"},
		{"scale 0", []string{"--seed", "1", "--scale", "0"}, "scale 0"},
		{"shard 3/2", []string{"--seed", "1", "--shard", "3/2"}, "0 <= i < M"},
		{"workers 0", []string{"--seed", "1", "--workers", "0"}, "workers"},
		{"gzip level 0", []string{"--seed", "1", "--gzip-level", "0"}, "gzip level"},
		// It said "gzip and zstd are exclusive" though no --gzip was given.
		{"gz suffix and zstd", []string{"--seed", "1", "--file", "x.ilp.gz", "--zstd"}, "--file x.ilp.gz: the .gz suffix means gzip, and --zstd asks for zstd"},
		{"zst suffix and gzip", []string{"--seed", "1", "--file", "x.ilp.zst", "--gzip"}, "the .zst suffix means zstd, and --gzip asks for gzip"},
		{"unwritable file", []string{"--seed", "1", "--file", "/nonexistent/x.ilp"}, "cannot write output"},
		{"out-of-order 2", []string{"--seed", "1", "--out-of-order", "2"}, "--out-of-order 2: want a fraction from 0 to 1"},
		{"bad window", []string{"--seed", "1", "--out-of-order", "0.1", "--out-of-order-window", "soon"}, "--out-of-order-window"},
		{"late-by under the interval", []string{"--seed", "1", "--late", "0.1", "--late-by", "1s"}, "--late-by 1s: shorter than the interval"},
		{"repeat-changes alone", []string{"--seed", "1", "--repeat-changes"}, "--repeat-changes needs --repeat"},
		{"argument", []string{"--seed", "1", "extra"}, "unexpected argument"},
		{"not a number", []string{"--seed", "1", "--scale", "x"}, "invalid value"},
		{"unknown flag", []string{"--seed", "1", "--bogus"}, "unknown flag --bogus (see --help)"},
		{"misspelt flag", []string{"--seed", "1", "--flie", "x.ilp"}, "unknown flag --flie: did you mean --file? (see --help)"},
		{"one-dash value error", []string{"--seed", "1", "--scale=x"}, "for flag --scale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"generate_data"}, tt.args...), &stdout, &stderr)
			if err == nil {
				t.Fatal("no error")
			}
			var msg bytes.Buffer
			if code := exitCode(err, &msg); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			line := msg.String()
			if !strings.Contains(line, tt.want) || strings.Count(line, "\n") != 1 {
				t.Errorf("stderr %q, want one line containing %q", line, tt.want)
			}
			if stdout.Len() != 0 || stderr.Len() != 0 {
				t.Errorf("run wrote stdout %q stderr %q", stdout.String(), stderr.String())
			}
		})
	}
}

func TestRunFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.csv.gz")
	var stdout, stderr bytes.Buffer
	args := []string{"generate_data", "--seed", "1", "--format", "csv", "--scale", "2", "--max-rows", "10", "--file", path}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 {
		t.Errorf("data on stdout with --file")
	}
	if !strings.Contains(stderr.String(), "generate_data: 10 rows") {
		t.Errorf("no progress summary on stderr: %q", stderr.String())
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("not gzip: %v", err)
	}
}

// TestBrokenPipe runs the real binary into `head -1`: it must end quietly
// with a non-zero status.
func TestBrokenPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "generate_data")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", "-c", `set -o pipefail; "$0" --seed 1 --scale 100 --timestamp-end 2016-01-10T00:00:00Z 2>stderr.txt | head -1 >/dev/null; echo "status=${PIPESTATUS[0]}"`, bin)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "status=") {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "status=141" {
		t.Errorf("got %q, want status=141", got)
	}
	stderr, _ := os.ReadFile(filepath.Join(cmd.Dir, "stderr.txt"))
	if len(stderr) != 0 {
		t.Errorf("stderr not quiet: %q", stderr)
	}
}

// TestDisorderFile: with the out-of-order and repeat flags and
// --fingerprint, F.dataset.json records the settings and a fingerprint of
// every row written, repeats included (a loader's content verification
// reads the same rows: docs/verify.md).
func TestDisorderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.ilp")
	var stdout, stderr bytes.Buffer
	args := []string{"generate_data", "--seed", "1", "--scale", "2", "--timestamp-end", "2016-01-01T01:00:00Z", "--file", path,
		"--out-of-order", "0.3", "--out-of-order-window", "10m", "--late", "0.1", "--late-by", "20m", "--repeat", "0.1", "--repeat-changes", "--fingerprint"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	d, err := envinfo.ReadDataset(path)
	if err != nil || d == nil {
		t.Fatalf("description: %+v, %v", d, err)
	}
	want := envinfo.Disorder{OutOfOrder: 0.3, OutOfOrderWindow: "10m0s", Late: 0.1, LateBy: "20m0s", Repeat: 0.1, RepeatChanges: true}
	if d.Disorder == nil || *d.Disorder != want {
		t.Errorf("disorder %+v, want %+v", d.Disorder, want)
	}
	if d.Rows <= 2*360 || len(d.Fingerprint) != 1 || d.Fingerprint[0].Rows != d.Rows {
		t.Errorf("%d rows (want more than the 720 without repeats), fingerprint %+v", d.Rows, d.Fingerprint)
	}
}

// TestHelpNamesEveryFormat: --help's first line names every format
// --format writes (it once left Parquet out).
func TestHelpNamesEveryFormat(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"generate_data", "--help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(stderr.String(), "USAGE")
	for _, f := range []string{"ILP", "CSV", "COPY", "Parquet"} {
		if !strings.Contains(head, f) {
			t.Errorf("--help's description lacks %s:\n%s", f, head)
		}
	}
}
