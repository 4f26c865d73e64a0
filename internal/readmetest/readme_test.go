package readmetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Small sizes for the README's commands: generate_data runs through a
// wrapper that caps --scale and adds --max-rows; the benchmark scripts
// take their sizes from the environment.
const (
	capScale   = 20
	capRows    = 3000
	smallEnd   = "2016-01-01T00:10:00Z"
	perCommand = 5 * time.Minute
)

var smallEnv = []string{
	"SCALE=5", "END=" + smallEnd, // bench_generate.sh
	"TSLOAD_BENCH_SCALE=5", "TSLOAD_BENCH_END=" + smallEnd, "TSLOAD_BENCH_BATCH_SIZES=5000", "TSLOAD_BENCH_WORKERS=2", // bench_load.sh
	"TSLOAD_BENCH_ROUNDS=1",                      // bench_load.sh duckdb|sqlite|tonbo: one round of each run, not the median of three
	"TSLOAD_RATE_EVERY=1s", "TSLOAD_RATE_MAX=4k", // bench_rate.sh: two or three 1 s steps, not a 40-80 s staircase
}

// repoRoot is the directory of go.mod above the test.
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// TestREADME runs every shell command of README.md and then of the pages
// under docs/ (in Documents' order: the README's walk-through builds the
// tools and starts the servers, later pages use files earlier ones made),
// in a copy of the repository, against the local servers (scripts/test.sh
// starts them), at a small size. Commands marked in a page with a reason
// are listed, not run. It loads into the databases the pages name, so it
// does not run inside the parallel `go test ./...`: scripts/test.sh runs
// it alone afterwards with TSLOAD_README_TEST=1.
func TestREADME(t *testing.T) {
	if os.Getenv("TSLOAD_README_TEST") != "1" {
		t.Skip("run alone by scripts/test.sh (TSLOAD_README_TEST=1): the README's commands load into the databases it names")
	}
	root := repoRoot(t)
	docs, err := Documents(root)
	if err != nil {
		t.Fatal(err)
	}
	programs := map[string]bool{"go": true, "export": true, "gzip": true, "cd": true, "bash": true, "psql": true, "curl": true}
	cmds, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cmds {
		if e.IsDir() {
			programs[e.Name()] = true
		}
	}
	known := func(p string) bool {
		if strings.HasPrefix(p, "scripts/") {
			// A script, not a directory: "scripts/   what it holds"
			// in a layout block is prose.
			st, err := os.Stat(filepath.Join(root, p))
			return err == nil && st.Mode().IsRegular()
		}
		return programs[p]
	}
	type docCommand struct {
		doc string
		Command
	}
	var commands []docCommand
	perDoc := map[string]int{}
	for _, doc := range docs {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		for _, b := range blocks {
			cs, err := Commands(b, known)
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			for _, c := range cs {
				commands = append(commands, docCommand{doc, c})
			}
			perDoc[doc] += len(cs)
		}
	}
	// The README's walk-through and synopsis, and the loaders' examples:
	// a page that lost its commands (a parser change, a reformatted block)
	// must not pass by running nothing.
	for doc, least := range map[string]int{"README.md": 10, "docs/loaders/timescale.md": 5, "docs/loaders/questdb.md": 5, "docs/loaders/influx.md": 4, "docs/loaders/cnosdb.md": 2, "docs/benchmarks.md": 8} {
		if perDoc[doc] < least {
			t.Fatalf("only %d commands found in %s, want at least %d", perDoc[doc], doc, least)
		}
	}

	work := filepath.Join(t.TempDir(), "repo")
	copyRepo(t, root, work)
	wrap := filepath.Join(t.TempDir(), "bin")
	// Built in the copy, so that the README's and the scripts' own builds
	// there find everything in the build cache.
	buildWrappers(t, work, wrap)
	// Not TSLOAD_README_TEST: a command that runs the test suite must not
	// run this test again.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TSLOAD_README_TEST=") {
			env = append(env, kv)
		}
	}
	env = append(env, smallEnv...)
	env = append(env, "PATH="+wrap+string(os.PathListSeparator)+os.Getenv("PATH"), "TSLOAD_BIN="+wrap)

	ran, skipped := 0, 0
	for _, c := range commands {
		if c.Skip != "" {
			skipped++
			t.Logf("%s:%d: not run (%s): %s", c.doc, c.Line, c.Skip, c.Text)
			continue
		}
		ran++
		t0 := time.Now()
		out, err := run(work, env, c.Text)
		if err != nil {
			t.Errorf("%s:%d: %s\n%v after %s; last output:\n%s", c.doc, c.Line, c.Text, err, time.Since(t0).Round(time.Millisecond), tail(out, 25))
			continue
		}
		t.Logf("%s:%d: ok in %s: %s", c.doc, c.Line, time.Since(t0).Round(time.Millisecond), c.Text)
	}
	t.Logf("%d commands run, %d marked as not runnable here, from %d documents", ran, skipped, len(docs))
}

// run runs one command with bash (pipefail: every stage must succeed; a
// pipe into head may end its writer with SIGPIPE, status 141).
func run(dir string, env []string, command string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), perCommand)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 141 && strings.Contains(command, "| head") {
		return out, nil
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("timed out after %s", perCommand)
	}
	return out, err
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// copyRepo copies the repository's files (git's list when there is one,
// else the tree without .git and bin) with their modes, so that scripts
// keep their executable bit.
func copyRepo(t *testing.T, root, dst string) {
	t.Helper()
	var files []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted in the work tree
			}
			t.Fatal(err)
		}
		if !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	// Scripts find ../shared/vendor relative to the repository.
	if _, err := os.Stat(filepath.Join(root, "..", "shared")); err == nil {
		if err := os.Symlink(filepath.Join(root, "..", "shared"), filepath.Join(filepath.Dir(dst), "shared")); err != nil {
			t.Fatal(err)
		}
	}
}

// buildWrappers builds the commands into dir and replaces generate_data
// with a script that runs it at a small size.
func buildWrappers(t *testing.T, root, dir string) {
	t.Helper()
	real := filepath.Join(dir, "real")
	cmd := exec.Command("go", "build", "-o", real+string(filepath.Separator), "./cmd/...")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "generate_data" {
			continue
		}
		if err := os.Symlink(filepath.Join(real, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(`#!/usr/bin/env bash
# The README's generate_data at a small size: --scale at most %[1]d, and
# --max-rows %[2]d unless the command gives one.
args=() max=0
while [ $# -gt 0 ]; do
	case "$1" in
	--scale) args+=(--scale "$(( $2 < %[1]d ? $2 : %[1]d ))"); shift 2 ;;
	--scale=*) v=${1#--scale=}; args+=("--scale=$(( v < %[1]d ? v : %[1]d ))"); shift ;;
	--max-rows | --max-rows=*) max=1; args+=("$1"); shift ;;
	*) args+=("$1"); shift ;;
	esac
done
[ "$max" = 1 ] || args+=(--max-rows %[2]d)
exec %[3]q "${args[@]}"
`, capScale, capRows, filepath.Join(real, "generate_data"))
	if err := os.WriteFile(filepath.Join(dir, "generate_data"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}
