package experiments

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shell runs a bash script that has sourced scripts/lib.sh (the functions every bench script
// and, through lib.sh here, every experiment uses) and returns its output.
func shell(t *testing.T, script string, env ...string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", ". ../lib.sh\n"+script)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestInterferenceJudge checks the arithmetic of interf_judge on fixed samples
// ("WALL BUSY TOTAL STEAL SERVER" ticks): the machine's busy CPU less the server's and the
// command's, over the wall time, and the two thresholds of pkg/interference.
func TestInterferenceJudge(t *testing.T) {
	hz, err := exec.Command("getconf", "CLK_TCK").Output()
	if err != nil {
		t.Skip("no getconf")
	}
	h, _ := strconv.Atoi(strings.TrimSpace(string(hz)))
	tick := func(cores float64) int { return int(cores * float64(h) * 10) } // over 10 s
	for _, c := range []struct {
		name               string
		busy, total, steal int
		server             int
		command            string
		want               string
	}{
		{"a busy loop beside", tick(1.2), tick(2), 0, 0, "0", "1.20 DISTURBED"},
		{"the command's own CPU", tick(1.2), tick(2), 0, 0, "12", "0.00"},
		{"the server's own CPU", tick(1.2), tick(2), 0, tick(1), "0", "0.20"},
		{"server and command", tick(2), tick(2), 0, tick(1), "6", "0.40"},
		{"at the threshold", tick(0.5), tick(2), 0, 0, "0", "0.50"},
		{"steal", tick(0.5), tick(2), tick(0.3), 0, "5", "0.00 DISTURBED"},
	} {
		got := shell(t, fmt.Sprintf(`interf_judge "0 0 0 0 0" "10 %d %d %d %d" %s 1.00 2.00; echo "$interf_cell|$interf_note"`,
			c.busy, c.total, c.steal, c.server, c.command))
		cell, note, _ := strings.Cut(got, "|")
		if cell != c.want {
			t.Errorf("%s: cell %q, want %q", c.name, cell, c.want)
		}
		if !strings.Contains(note, "load average 1.00->2.00") {
			t.Errorf("%s: note %q", c.name, note)
		}
	}
}

// TestInterferenceMeasured measures a real command: the cell is a figure (what it is depends
// on the machine, so only its form is checked), and a command's own CPU is not counted as
// interference: a one-second busy loop run as the command leaves the cell under its own core.
func TestInterferenceMeasured(t *testing.T) {
	got := shell(t, `interf_begin
timeout 1 sh -c 'while :; do :; done' || true
interf_end
interf_keep row
echo "$interf_cell|$(interf_rows row)"`)
	cell, rows, _ := strings.Cut(got, "|")
	if !regexp.MustCompile(`^\d+\.\d\d( DISTURBED)?$`).MatchString(cell) {
		t.Fatalf("cell %q is not an interference figure", cell)
	}
	if rows != cell && rows != cell+" 1 of 1" {
		t.Errorf("interf_rows %q for the one run %q", rows, cell)
	}
}

// TestBenchGenerateInterference runs scripts/bench_generate.sh at a tiny size: every row of its
// table ends with the interference measured around it.
func TestBenchGenerateInterference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generate_data and runs the bench script")
	}
	cmd := exec.Command("bash", filepath.Join("..", "bench_generate.sh"))
	cmd.Env = append(os.Environ(), "SCALE=2", "END=2016-01-01T00:10:00Z", "FORMATS=ilp", "WORKERS=1", "TSLOAD_STATE="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench_generate.sh: %v\n%s", err, out)
	}
	row := regexp.MustCompile(`^ilp +\S+ +\d+ .* (\d+\.\d\d)( DISTURBED)?$`)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n")[2:] {
		if !row.MatchString(l) {
			t.Errorf("row without an interference cell: %q", l)
		}
		n++
	}
	if n != 3 { // no gzip, gzip, the |gzip baseline
		t.Errorf("%d rows, want 3:\n%s", n, out)
	}
}
