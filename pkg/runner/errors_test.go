package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// hostileILP writes n lines of cpu with a malformed line at every line
// number in bad (1-based), CRLF line ends on some, and comments; it
// returns the path and the line that fixes each bad one.
func hostileILP(t *testing.T, n int, bad map[int]string) (string, map[int]string) {
	t.Helper()
	var b strings.Builder
	fixed := map[int]string{}
	for i := 1; i <= n; i++ {
		good := fmt.Sprintf("cpu,host=h%d usage=%d,idle=1 %d", i%7, i, 1700000000000000000+int64(i))
		switch {
		case bad[i] != "":
			b.WriteString(bad[i] + "\n")
			fixed[i] = good
		case i%500 == 0:
			b.WriteString("# a comment\n")
		case i%3 == 0:
			b.WriteString(good + "\r\n")
		default:
			b.WriteString(good + "\n")
		}
	}
	path := filepath.Join(t.TempDir(), "hostile.ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, fixed
}

// errorEntry is one record of an errors file.
type errorEntry struct {
	comment, raw string
	line         int
}

func readErrorsFile(t *testing.T, path, input string) []errorEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []errorEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := sc.Text()
		var e errorEntry
		if _, err := fmt.Sscanf(strings.TrimPrefix(c, "# "+input+": "), "line %d,", &e.line); err != nil || !strings.HasPrefix(c, "# ") {
			t.Fatalf("comment line %q: %v", c, err)
		}
		if !sc.Scan() {
			t.Fatalf("no line after %q", c)
		}
		e.comment, e.raw = c, sc.Text()
		out = append(out, e)
	}
	return out
}

// TestErrorsFile: the errors file of a hostile input names each skipped
// line's number (as in the input), offset and reason, holds its raw bytes,
// and once its lines are fixed (comments kept) it loads as it is, with no
// line skipped. Both the workers' checks and the splitter's (hashed
// workers) write it.
func TestErrorsFile(t *testing.T) {
	bad := map[int]string{
		17:   "cpu,host=h usage",
		999:  "cpu,host=h usage=1 notatime",
		1000: "cpu,host usage=1 1",
		4321: "cpu usage=",
	}
	path, fixed := hostileILP(t, 5000, bad)
	raw, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(raw), "\n")
	for _, hash := range []bool{false, true} {
		t.Run(fmt.Sprintf("hash=%v", hash), func(t *testing.T) {
			errs := filepath.Join(t.TempDir(), "errors.ilp")
			cfg := baseConfig(path)
			cfg.BatchSize, cfg.Workers, cfg.HashWorkers, cfg.DoLoad, cfg.Verify = 300, 2, hash, false, false
			cfg.SkipInvalid, cfg.ErrorsFile = true, errs
			res, err := Run(context.Background(), cfg, nil)
			if err != nil || res.SkippedRecords != int64(len(bad)) {
				t.Fatalf("%v: skipped %d", err, res.SkippedRecords)
			}
			entries := readErrorsFile(t, errs, path)
			if len(entries) != len(bad) {
				t.Fatalf("%d entries, want %d", len(entries), len(bad))
			}
			var fix strings.Builder
			for _, e := range entries {
				if bad[e.line] != e.raw {
					t.Fatalf("line %d: raw %q, the input has %q", e.line, e.raw, bad[e.line])
				}
				off := 0
				for _, l := range lines[:e.line-1] {
					off += len(l)
				}
				if !strings.Contains(e.comment, fmt.Sprintf("line %d, byte offset %d: skipped: ", e.line, off)) {
					t.Fatalf("comment %q: want line %d at offset %d and a reason", e.comment, e.line, off)
				}
				fix.WriteString(e.comment + "\n" + fixed[e.line] + "\n")
			}
			fixedPath := filepath.Join(t.TempDir(), "fixed.ilp")
			os.WriteFile(fixedPath, []byte(fix.String()), 0o644)
			f := newFake()
			again := baseConfig(fixedPath)
			res, err = Run(context.Background(), again, f)
			if err != nil || res.Rows != int64(len(bad)) || res.SkippedRecords != 0 || !res.Verify.OK {
				t.Fatalf("reloading the fixed errors file: %v rows %d skipped %d", err, res.Rows, res.SkippedRecords)
			}
		})
	}
}

// TestErrorsFileRefusedRows: rows the server refused (a partial write) go
// to the errors file with the server's words and their raw lines.
func TestErrorsFileRefusedRows(t *testing.T) {
	path, _ := ilpInput(t, 3000)
	raw, _ := os.ReadFile(path)
	lines := strings.Split(string(raw), "\n")
	f := newFake()
	f.fail = func(b *load.Batch, attempt int) (load.Ack, error) {
		if b.Seq == 2 {
			return load.Ack{Rows: b.Rows - 2, Rejected: []load.Rejection{{Line: b.FirstLine + 4, Reason: "field type conflict:\ninput field \"v\""}}, Dropped: 1}, nil
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	cfg := baseConfig(path)
	cfg.Workers, cfg.SkipInvalid = 1, true
	cfg.ErrorsFile = filepath.Join(t.TempDir(), "errors.ilp")
	if _, err := Run(context.Background(), cfg, f); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(cfg.ErrorsFile)
	want := fmt.Sprintf("# %s: line 1005: refused by the server: field type conflict: input field \"v\"\n%s\n# %s: records 1001-2000 (line 1001, byte offset ", path, lines[1004], path)
	if !strings.HasPrefix(string(got), want) || !strings.HasSuffix(string(got), ": 1 more rows refused by the server without naming them\n") {
		t.Fatalf("errors file:\n%s\nwant it to start with:\n%s", got, want)
	}
}

// TestMaxErrors: more skipped or refused lines than the limit stop the
// run, failed; as many as the limit do not; 0 stops at the first.
func TestMaxErrors(t *testing.T) {
	bad := map[int]string{100: "cpu x", 2000: "cpu y", 3000: "cpu z"}
	path, _ := hostileILP(t, 4000, bad)
	for _, tc := range []struct {
		max  int64
		fail bool
	}{{0, true}, {2, true}, {3, false}} {
		cfg := baseConfig(path)
		cfg.BatchSize, cfg.DoLoad, cfg.Verify = 100, false, false
		cfg.LimitErrors, cfg.MaxErrors = true, tc.max
		res, err := Run(context.Background(), cfg, nil)
		if tc.fail != errors.Is(err, ErrTooManyErrors) || (tc.fail && res.Status != results.StatusFailed) {
			t.Fatalf("max %d: err %v status %s", tc.max, err, res.Status)
		}
		if !tc.fail && res.SkippedRecords != 3 {
			t.Fatalf("max %d: skipped %d", tc.max, res.SkippedRecords)
		}
	}
}
