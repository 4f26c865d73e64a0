package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/results"
)

// ResumeSuite kills a loader (the built command, a process of its own)
// with SIGKILL at several points of a load into a real server, resumes the
// load with --resume, and checks that the server ends with every row once.
type ResumeSuite struct {
	// Command is the loader's package ("github.com/tsload/tsload/cmd/load_x";
	// in a TargetSuite, by default its Loader's).
	Command string
	// Upstream is the server's address (host:port or a URL) the proxy
	// forwards to (in a TargetSuite, by default its Upstream).
	Upstream string
	// DB, when set, names the database of each load, made fresh by the
	// load (--db-name, --drop-db; dropping it when the test ends is DB's
	// business); Args and Rows are given its name. Without DB, or when it
	// returns "", they are given "" and the load no --db-name.
	DB func(t *testing.T) string
	// Args are the loader's target flags writing table of database db
	// through proxy (host:port), including whatever else makes a fresh
	// table.
	Args func(t *testing.T, proxy, db, table string) []string
	// Rows returns what the server holds in table of database db: rows and
	// distinct (timestamp, host) keys, read directly.
	Rows func(t *testing.T, db, table string) (rows, keys int64)
	// Again are flags a resume must be given again: values holding a
	// secret, which the journal keeps masked.
	Again []string
	// Step is the time between the timestamps of the loads' rows (0: a
	// millisecond; in a TargetSuite, by default its Step).
	Step time.Duration
}

// resumeRows is the size of each load: TSLOAD_RESUME_ROWS (default
// 200,000; the 1,000,000-row variant with TSLOAD_RESUME_ROWS=1000000).
func resumeRows() int {
	if n, err := strconv.Atoi(os.Getenv("TSLOAD_RESUME_ROWS")); err == nil && n > 0 {
		return n
	}
	return 200_000
}

// BuildCommand compiles the command package pkg into a temporary
// directory and returns the binary's path.
func BuildCommand(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Run runs the scenarios as subtests; table names start with prefix.
func (s ResumeSuite) Run(t *testing.T, prefix string) {
	if testing.Short() {
		t.Skip("-short: no loader kills")
	}
	bin := BuildCommand(t, s.Command)
	n := resumeRows()
	kill := func(name string, when func(r *resumeRun) bool) {
		t.Run("killed "+name, func(t *testing.T) {
			r := s.start(t, bin, prefix+"_"+strings.ReplaceAll(name, " ", "_"), n)
			if !r.killWhen(t, when, name == "while verifying") {
				t.Logf("the loader finished before the kill (verification was quicker than the journal's period)")
				out, err := r.cmd(t, "--resume", r.results)
				if err != nil || !strings.Contains(out, "nothing to resume") {
					t.Fatalf("resume of a finished load: %v\n%s", err, out)
				}
				s.exact(t, r, int64(n))
				return
			}
			res := r.resume(t, "")
			s.exact(t, r, int64(n))
			t.Logf("killed at %s rows acknowledged (journal); resumed: %d rows skipped, %d batches in doubt (%d found written, %d not), %d rows loaded; %.2fs",
				count64(r.killedAt), res.Resume.SkippedRows, res.Resume.InDoubt, res.Resume.SettledWritten, res.Resume.SettledLost, res.Rows, res.Seconds)
			if name == "with batches in doubt" && res.Resume.InDoubt == 0 {
				t.Errorf("no batch in doubt after the kill")
			}
			// Resuming the finished load does nothing.
			out, err := r.cmd(t, "--resume", r.results)
			if err != nil || !strings.Contains(out, "nothing to resume") {
				t.Fatalf("resume of a finished load: %v\n%s", err, out)
			}
			s.exact(t, r, int64(n))
		})
	}
	kill("early", func(r *resumeRun) bool { return r.acked() > 0 })
	kill("mid-load", func(r *resumeRun) bool { return r.acked() >= int64(n)/2 })
	slowed := false
	kill("with batches in doubt", func(r *resumeRun) bool {
		if !slowed {
			// Every chunk 10 ms late from the start: a fast server
			// (VictoriaMetrics) took the whole load between two looks
			// at the journal on a busy machine, and the kill found no
			// batch in doubt. Now the rest of the load takes seconds
			// after the kill point.
			r.proxy.SetLatency(10 * time.Millisecond)
			slowed = true
		}
		if r.acked() < int64(n)/3 {
			return false
		}
		// Answers now take a second each way: batches sent reach the
		// server, and their answers are still on the way at the kill.
		r.proxy.SetLatency(time.Second)
		time.Sleep(2500 * time.Millisecond)
		return true
	})
	kill("while verifying", func(r *resumeRun) bool {
		if r.acked() >= int64(n)*95/100 {
			// The last batches and the count are slowed: the journal's
			// snapshots (every 50ms) see every row acknowledged before
			// the count's answer is back.
			r.proxy.SetLatency(100 * time.Millisecond)
		}
		return r.acked() == int64(n)
	})
	t.Run("refused resumes", func(t *testing.T) {
		r := s.start(t, bin, prefix+"_refused", n)
		r.killWhen(t, func(r *resumeRun) bool { return r.acked() >= int64(n)/4 }, false)
		out, err := r.cmd(t, "--resume", r.results, "--batch-size", "500")
		if err == nil || !strings.Contains(out, "--batch-size 500 differs from the load's --batch-size 1000") {
			t.Fatalf("changed batch size: %v\n%s", err, out)
		}
		data, err := os.ReadFile(r.input)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(r.input, append(data, data[:64]...), 0o644)
		out, err = r.cmd(t, "--resume", r.results)
		if err == nil || !strings.Contains(out, "changed since the load began") {
			t.Fatalf("changed input: %v\n%s", err, out)
		}
		os.WriteFile(r.input, data, 0o644) // as it was: the load resumes
		r.resume(t, "")
		s.exact(t, r, int64(n))
	})
}

// resumeRun is one load of a scenario: its process, files and proxy.
type resumeRun struct {
	bin, db, table, input, results string
	again                          []string
	args                           []string
	proxy                          *faultproxy.Proxy
	proc                           *exec.Cmd
	stderr                         *bytes.Buffer
	exited                         chan error
	killedAt                       int64
}

func (s ResumeSuite) start(t *testing.T, bin, table string, n int) *resumeRun {
	t.Helper()
	p := Proxy(t, s.Upstream)
	r := &resumeRun{again: s.Again, bin: bin, table: table, proxy: p, input: faultLines(t, table, n, s.Step, nil),
		results: filepath.Join(t.TempDir(), "results.json"), stderr: &bytes.Buffer{}, exited: make(chan error, 1)}
	r.args = []string{"--file", r.input, "--batch-size", "1000", "--workers", "2", "--reporting-period", "50ms",
		"--retry-timeout", "30s", "--results-file", r.results}
	if s.DB != nil {
		r.db = s.DB(t)
	}
	if r.db != "" {
		r.args = append(r.args, "--db-name", r.db, "--drop-db")
	}
	r.args = append(r.args, s.Args(t, p.Addr(), r.db, table)...)
	r.proc = exec.Command(bin, r.args...)
	r.proc.Stderr = r.stderr
	if err := r.proc.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.exited <- r.proc.Wait() }()
	t.Cleanup(func() {
		if r.proc.ProcessState == nil {
			r.proc.Process.Kill()
		}
	})
	return r
}

// acked is the rows the journal records as acknowledged (0 before it is
// written).
func (r *resumeRun) acked() int64 {
	data, err := os.ReadFile(journal.Path(r.results))
	if err != nil {
		return 0
	}
	var j journal.Journal
	if json.Unmarshal(data, &j) != nil {
		return 0
	}
	return j.Rows
}

// killWhen kills the loader with SIGKILL once when says so and reports
// true; the loader must still be running then, unless mayEnd (then it
// reports false when the loader ended well before the kill).
func (r *resumeRun) killWhen(t *testing.T, when func(r *resumeRun) bool, mayEnd bool) bool {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for !when(r) {
		select {
		case err := <-r.exited:
			if mayEnd && err == nil {
				return false
			}
			t.Fatalf("the loader ended (%v) before the kill point, at %d rows acknowledged\n%s", err, r.acked(), r.stderr)
		case <-deadline:
			t.Fatalf("no kill point within 2 minutes (%d rows acknowledged)\n%s", r.acked(), r.stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
	r.killedAt = r.acked()
	r.proc.Process.Kill() // SIGKILL: no signal handler, no last snapshot
	err := <-r.exited
	r.proxy.SetLatency(0)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		if mayEnd && err == nil {
			return false
		}
		t.Fatalf("the loader ended (%v) before the kill\n%s", err, r.stderr)
	}
	if mayEnd && r.complete() {
		// The kill came after the run's last snapshot said the load was
		// complete (between it and the exit): there is nothing to resume.
		return false
	}
	return true
}

// complete reports whether the journal says the load is complete.
func (r *resumeRun) complete() bool {
	data, err := os.ReadFile(journal.Path(r.results))
	if err != nil {
		return false
	}
	var j journal.Journal
	return json.Unmarshal(data, &j) == nil && j.Complete
}

// cmd runs the loader with args and returns its stderr.
func (r *resumeRun) cmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	if len(args) > 0 && args[0] == "--resume" {
		args = append(args, r.again...)
	}
	return RunCommand(r.bin, args...)
}

// RunCommand runs the program bin with args and returns its stderr and
// how it ended.
func RunCommand(bin string, args ...string) (stderr string, err error) {
	c := exec.Command(bin, args...)
	var out bytes.Buffer
	c.Stderr = &out
	err = c.Run()
	return out.String(), err
}

// AsKilled rewrites the journal of the load whose results file is
// results as a kill leaves it: its last snapshot not final, the load not
// complete, so that --resume has something to resume.
func AsKilled(t testing.TB, results string) {
	t.Helper()
	j, path, err := journal.Read(results)
	if err != nil {
		t.Fatal(err)
	}
	j.Final, j.Complete = false, false
	data, err := json.Marshal(j)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// resume continues the load with --resume (and extra flags) and returns
// its results; it must succeed.
func (r *resumeRun) resume(t *testing.T, extra ...string) results.Results {
	t.Helper()
	args := []string{"--resume", r.results}
	for _, e := range extra {
		if e != "" {
			args = append(args, e)
		}
	}
	out, err := r.cmd(t, args...)
	if err != nil {
		t.Fatalf("resume: %v\n%s\nfirst run:\n%s", err, out, r.stderr)
	}
	res := ReadResults(t, r.results)
	if res.Resume == nil || res.Status != results.StatusOK || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("resumed run: status %s, resume %+v, verify %+v\n%s", res.Status, res.Resume, res.Verify, out)
	}
	return res
}

// exact fails the test unless the server holds every row once.
func (s ResumeSuite) exact(t *testing.T, r *resumeRun, rows int64) {
	t.Helper()
	if n, keys := s.Rows(t, r.db, r.table); n != rows || keys != rows {
		t.Fatalf("the database holds %d rows, %d distinct, want %d", n, keys, rows)
	}
}

func count64(n int64) string { return fmt.Sprintf("%d", n) }
