package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestBusyNeighbourMarksEmbeddedRunDisturbed: the database runs inside the
// loader, so its CPU is the loader's and is taken away once; a busy loop
// beside a load at full speed is still other work, and the run is marked
// disturbed. (Counting the loader's core twice hid it: interference 0
// beside a spinning core.)
func TestBusyNeighbourMarksEmbeddedRunDisturbed(t *testing.T) {
	var in strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&in, "busy,h=h%d v=%d %d\n", i%10, i, int64(1451606400000000000)+int64(i)*1e9)
	}
	// The loop is not the test's child: the database's CPU is measured as
	// the loader's process tree, which must not hold the neighbour.
	out, err := exec.Command("sh", "-c", "(while :; do :; done) >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	stop := func() { syscall.Kill(pid, syscall.SIGKILL) }
	defer stop()
	db := filepath.Join(t.TempDir(), "busy.sqlite")
	r := loadtest.RunOnInput(t, spec(), "busy.ilp", in.String(), "", "--db-path", db, "--batch-size", "5000")
	res := r.Verified(t, 200000)
	stop()
	in0 := res.Cost.Interference
	if in0 == nil || !in0.Disturbed || in0.Cores < 0.5 {
		t.Fatalf("interference %+v, want disturbed\n%s", in0, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "DISTURBED: other work ran on the machine (interference ") {
		t.Errorf("the summary does not say the run was disturbed:\n%s", r.Stderr)
	}
}
