//go:build tonbo && cgo

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/tonbo"
)

// The loader is built with the bridge and run as a process; the tables it
// leaves are read back with tonbo.ReadTable.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// build builds the loader with the bridge once per test binary.
func build(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "load_tonbo")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "load_tonbo")
		if out, err := exec.Command("go", "build", "-tags", "tonbo", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build -tags tonbo: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func generate(t *testing.T, dir, f string) string {
	t.Helper()
	gen := filepath.Join(dir, "generate_data")
	if out, err := exec.Command("go", "build", "-o", gen, "github.com/tsload/tsload/cmd/generate_data").CombinedOutput(); err != nil {
		t.Fatalf("go build generate_data: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "cpu."+f)
	end := time.Date(2016, 1, 1, 1, 0, 0, 0, time.UTC).Format(time.RFC3339)
	if out, err := exec.Command(gen, "--use-case", "cpu-only", "--seed", "1", "--scale", "5", "--timestamp-end", end,
		"--format", f, "--file", path).CombinedOutput(); err != nil {
		t.Fatalf("generate_data: %v\n%s", err, out)
	}
	return path
}

func run(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err
}

// TestEveryMode loads 1,800 cpu rows in each commit mode with the WAL on
// and off, three writers, verified by content; the table read back holds
// them, 5 series. Loading again into it stores nothing twice.
func TestEveryMode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	bin := build(t)
	in := generate(t, t.TempDir(), "ilp")
	for _, commit := range []string{"per-row", "per-batch", "write-batch"} {
		for _, wal := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/wal=%v", commit, wal), func(t *testing.T) {
				dir := t.TempDir()
				db, res := filepath.Join(dir, "db"), filepath.Join(dir, "results.json")
				args := []string{"--file", in, "--db-path", db, "--commit", commit, fmt.Sprintf("--wal=%v", wal),
					"--workers", "3", "--batch-size", "100", "--verify", "content", "--results-file", res}
				if out, err := run(t, bin, args...); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				r := loadtest.ReadResults(t, res)
				if r.Rows != 1800 || r.Verify == nil || !r.Verify.OK || r.Verify.Mode != "content" {
					t.Fatalf("rows %d verify %+v", r.Rows, r.Verify)
				}
				rows, series, err := tonbo.ReadTable(filepath.Join(db, "cpu"))
				if err != nil || rows != 1800 || series != 5 {
					t.Fatalf("read back: %d rows, %d series, %v; want 1800, 5", rows, series, err)
				}
				if out, err := run(t, bin, args...); err != nil {
					t.Fatalf("again: %v\n%s", err, out)
				}
				if rows, _, err := tonbo.ReadTable(filepath.Join(db, "cpu")); err != nil || rows != 1800 {
					t.Fatalf("loaded twice: %d rows, %v; want 1800 (same series and time: replaced)", rows, err)
				}
			})
		}
	}
}

// TestTSBS loads TSBS's timescaledb file: its cpu table has no tags (an
// integer names the series), so its rows are keyed by all their values and
// none of the 240 is merged with another at the same time.
func TestTSBS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	bin := build(t)
	db := filepath.Join(t.TempDir(), "db")
	if out, err := run(t, bin, "--file", "../load_timescale/testdata/tsbs-cpu-only.timescaledb.gz", "--db-path", db, "--verify", "content"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for table, want := range map[string]int64{"cpu": 240, "tags": 4} {
		if rows, _, err := tonbo.ReadTable(filepath.Join(db, table)); err != nil || rows != want {
			t.Errorf("%s: %d rows, %v; want %d", table, rows, err, want)
		}
	}
}

// TestFormats loads CSV, pgcopy and Parquet of the same rows, verified by
// content.
func TestFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	bin := build(t)
	gen := t.TempDir()
	for _, f := range []string{"csv", "pgcopy", "parquet"} {
		t.Run(f, func(t *testing.T) {
			in := generate(t, gen, f)
			db := filepath.Join(t.TempDir(), "db")
			if out, err := run(t, bin, "--file", in, "--table", "cpu", "--db-path", db, "--verify", "content"); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if rows, _, err := tonbo.ReadTable(filepath.Join(db, "cpu")); err != nil || rows != 1800 {
				t.Fatalf("%d rows, %v", rows, err)
			}
		})
	}
}

// TestBadInput: a malformed line fails the load naming the file and line,
// without a crash, and a field of the wrong kind is refused the same way.
func TestBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	bin := build(t)
	for _, c := range []struct {
		name, data, want string
		rows             int64
	}{
		// The runner refuses the line before its batch is sent.
		{"malformed", "m,host=a v=1 1\nm,host=a v= 2\n", "(line 2, byte offset 15): field without value", 1},
		// The line is well-formed; the table (made from line 1) refuses it.
		{"kind", "m,host=a v=1 1\nm,host=a v=\"x\" 2\n", "input line 2 or after: field \"v\": a string into a float8 column", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "x.ilp")
			writeFile(t, in, c.data)
			db, res := filepath.Join(dir, "db"), filepath.Join(dir, "results.json")
			out, err := run(t, bin, "--file", in, "--db-path", db, "--batch-size", "1", "--workers", "1", "--results-file", res)
			if err == nil || !strings.Contains(out, c.want) || !strings.Contains(out, in) || strings.Contains(out, "goroutine") {
				t.Fatalf("err %v, want a message naming %s %s:\n%s", err, in, c.want, out)
			}
			// One writer, a line a batch: line 1 is written before line 2
			// is refused. What was acknowledged is what the table holds;
			// the refused line is neither.
			r := loadtest.ReadResults(t, res)
			rows, _, err := tonbo.ReadTable(filepath.Join(db, "m"))
			if err != nil || r.Rows != c.rows || rows != c.rows {
				t.Errorf("results say %d rows, the table holds %d (%v); want %d", r.Rows, rows, err, c.rows)
			}
		})
	}
}

// TestRefusals: --commit one-transaction is refused saying why, before
// anything is made.
func TestRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	bin := build(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "x.ilp")
	writeFile(t, in, "cpu,host=a v=1 1\n")
	out, err := run(t, bin, "--file", in, "--db-path", filepath.Join(dir, "db"), "--commit", "one-transaction")
	if err == nil || !strings.Contains(out, "--commit one-transaction is not available") {
		t.Errorf("one-transaction: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "db")); err == nil {
		t.Errorf("a refused setting made the database directory")
	}
}
