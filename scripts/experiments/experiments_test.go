// Package experiments holds no code: its test runs every experiment script in this directory
// at its --tiny size against the local servers, and checks what a reader of the published
// table relies on: the script ends with the table, every step either loaded exactly the rows
// it was meant to (the database's count) or says why it was skipped, and the chart was drawn.
// Speed is never asserted: the figures depend on the machine.
package experiments

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

const header = "| experiment step | published figure (hardware) | this machine | verified rows | notes |"

// row is one line of a script's table.
type row struct{ step, published, figure, verified, notes string }

// interferenceNote is what a measured row's notes say about the other work on the machine
// (scripts/experiments/lib.sh exp_interf): other processes' CPU in cores, maybe DISTURBED.
var interferenceNote = regexp.MustCompile(`interference \d+\.\d\d cores( DISTURBED)?`)

// parseTable returns the rows of the first table under header in out.
func parseTable(t *testing.T, out string) []row {
	t.Helper()
	var rows []row
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == header:
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			cells := strings.Split(strings.Trim(line, "|"), " | ")
			if len(cells) != 5 {
				t.Fatalf("table row with %d cells, want 5: %q", len(cells), line)
			}
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, row{cells[0], cells[1], cells[2], cells[3], cells[4]})
		case in:
			return rows
		}
	}
	return rows
}

// reachable reports whether something listens on the loopback port.
func reachable(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func count(s string) (int64, error) { return strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64) }

func lines(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return int64(bytes.Count(b, []byte("\n")))
}

var rowsInStep = regexp.MustCompile(`, ([0-9,]+) rows$`)

// rowsOfStep is the row count a step's name ends with (", 10,000 rows").
func rowsOfStep(t *testing.T, _ string, r row) int64 {
	m := rowsInStep.FindStringSubmatch(r.step)
	if m == nil {
		t.Fatalf("step %q does not say its row count", r.step)
	}
	n, err := count(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// serverPIDs identifies the running servers of the start scripts by their pid files. Other
// packages' fault tests kill and restart the shared QuestDB while this test may be loading
// into it; a run whose servers changed under it is repeated once rather than failed.
func serverPIDs() string {
	state := os.Getenv("TSLOAD_STATE")
	if state == "" {
		state = "/tmp/tsload"
	}
	var ids []string
	for _, f := range []string{"questdb/questdb.pid", "influx/main/influxd.pid", "cnosdb/main/cnosdb.pid", "pg/data/postmaster.pid"} {
		b, _ := os.ReadFile(filepath.Join(state, f))
		first, _, _ := strings.Cut(string(b), "\n")
		ids = append(ids, f+"="+strings.TrimSpace(first))
	}
	return strings.Join(ids, " ")
}

func TestExperimentsTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the experiment scripts against the local servers")
	}
	// The tools are built once for every script (TSLOAD_BIN), not by each.
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(os.PathSeparator), "./cmd/...")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, s := range []struct {
		script string
		ports  []int // servers the script needs (started by scripts/test.sh in CI)
		// expected returns the rows a step must have loaded, given the script's output dir.
		expected func(t *testing.T, out string, r row) int64
	}{
		{"questdb_serialize.sh", []int{9000}, func(*testing.T, string, row) int64 { return 100 * 20 }},
		{"cnosdb_influx.sh", []int{8086}, func(t *testing.T, out string, _ row) int64 {
			return lines(t, filepath.Join(out, "data", "iot.ilp"))
		}},
		{"timescale_ladder.sh", []int{5432}, func(t *testing.T, _ string, r row) int64 {
			switch {
			case strings.HasPrefix(r.step, "insert,"):
				return 500
			case strings.HasPrefix(r.step, "insert-multi,"):
				return 2000
			}
			return 2000 * 2 // 2,000 locations, 2 hours
		}},
		{"embedded_write.sh", nil, rowsOfStep},
		{"commit_modes.sh", []int{5432}, rowsOfStep},
	} {
		t.Run(strings.TrimSuffix(s.script, ".sh"), func(t *testing.T) {
			// Mostly waiting on servers (fsyncs, WAL, database creation): in parallel.
			t.Parallel()
			for _, p := range s.ports {
				if !reachable(p) {
					loadtest.SkipOrFail(t,
						fmt.Sprintf("no server on 127.0.0.1:%d (scripts/test.sh starts them)", p),
						fmt.Sprintf("no server on 127.0.0.1:%d", p))
				}
			}
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			run := func() error {
				stdout.Reset()
				stderr.Reset()
				cmd := exec.Command("bash", s.script, "--tiny", "--strict", "--out", out)
				cmd.Env = append(os.Environ(), "TSLOAD_BIN="+bin)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				return cmd.Run()
			}
			before := serverPIDs()
			err := run()
			if after := serverPIDs(); err != nil && after != before {
				t.Logf("a server was restarted during the run (%s -> %s): running %s again once it answers\n%s", before, after, s.script, stdout.String())
				for _, p := range s.ports {
					for deadline := time.Now().Add(2 * time.Minute); !reachable(p) && time.Now().Before(deadline); {
						time.Sleep(time.Second)
					}
				}
				err = run()
			}
			if err != nil {
				t.Fatalf("%s --tiny: %v\nstdout:\n%s\nstderr:\n%s", s.script, err, stdout.String(), stderr.String())
			}
			rows := parseTable(t, stdout.String())
			if len(rows) < 4 {
				t.Fatalf("%d table rows, want at least 4:\n%s", len(rows), stdout.String())
			}
			loaded := 0
			for _, r := range rows {
				switch {
				case r.figure == "skipped":
					if r.notes == "" {
						t.Errorf("step %q skipped without saying why", r.step)
					}
					// CI starts every server the experiments use, CnosDB included.
					if os.Getenv("CI") != "" && strings.HasPrefix(r.step, "CnosDB") {
						t.Errorf("step %q skipped in CI: %s", r.step, r.notes)
					}
				case !strings.HasSuffix(r.figure, " rows/s"):
					t.Errorf("step %q: figure %q is not a rate (notes: %s)", r.step, r.figure, r.notes)
				case !interferenceNote.MatchString(r.notes):
					// Every measured row says how much other work ran beside it.
					t.Errorf("step %q: notes %q give no interference (want %q)", r.step, r.notes, interferenceNote)
				case r.verified == "-":
					// Serialisation steps load nothing.
					if !strings.HasPrefix(r.step, "serialise") {
						t.Errorf("step %q has no verified count", r.step)
					}
				default:
					got, err := count(r.verified)
					if err != nil {
						t.Fatalf("step %q: verified %q: %v", r.step, r.verified, err)
					}
					if want := s.expected(t, out, r); got != want {
						t.Errorf("step %q: the database holds %d rows, want %d", r.step, got, want)
					}
					loaded++
				}
			}
			if loaded == 0 {
				t.Errorf("no step loaded anything:\n%s", stdout.String())
			}
			for _, f := range []string{"table.md", "bars_rows.png", "bars_rows.svg"} {
				if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
					t.Errorf("%s missing or empty (%v)", f, err)
				}
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
		})
	}
}
