package procstat

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestMachineFixed(t *testing.T) {
	m, err := fixed.Machine()
	if err != nil {
		t.Fatal(err)
	}
	// busy = user+nice+system+irq+softirq, idle = idle+iowait.
	want := Machine{Busy: 41838 + 5 + 10757 + 3 + 132, Idle: 20115 + 686, Steal: 234, CPUs: 2, Load1: 1.5, Load5: 0.75, Load15: 0.25}
	if m != want {
		t.Errorf("Machine() = %+v\nwant        %+v", m, want)
	}
	later := m
	later.Busy += 150 // 1.5 s of CPU
	later.Idle += 40
	later.Steal += 10
	d := later.Since(m)
	if d.Busy != 1500*time.Millisecond || d.Idle != 400*time.Millisecond || d.Steal != 100*time.Millisecond || d.Total() != 2*time.Second {
		t.Errorf("Since = %+v", d)
	}
	// A sample from before a reboot: nothing passed, never a negative.
	if d := m.Since(later); d.Total() != 0 {
		t.Errorf("Since(a later sample) = %+v, want zero", d)
	}
}

func TestParseMachineErrors(t *testing.T) {
	for _, tc := range []struct{ stat, loadavg string }{
		{"intr 1\n", "0 0 0 1/1 1\n"},
		{"cpu  1 2 3\n", "0 0 0 1/1 1\n"},
		{"cpu  1 2 3 x 5 6 7 8\n", "0 0 0 1/1 1\n"},
		{"cpu  1 2 3 4 5 6 7 99999999999999999999\n", "0 0 0 1/1 1\n"},
		{"cpu  1 2 3 4 5 6 7 8\n", "0.1 0.2\n"},
		{"cpu  1 2 3 4 5 6 7 8\n", "0.1 -1 0.3 1/1 1\n"},
		{"cpu  1 2 3 4 5 6 7 8\n", "NaN 0 0 1/1 1\n"},
	} {
		var m Machine
		err := parseMachineStat([]byte(tc.stat), &m)
		if err == nil {
			err = parseLoadavg([]byte(tc.loadavg), &m)
		}
		if err == nil {
			t.Errorf("stat %q, loadavg %q: no error", tc.stat, tc.loadavg)
		}
	}
	// Kernels before 2.6.11 have no steal field: 0.
	var m Machine
	if err := parseMachineStat([]byte("cpu  1 2 3 4 5 6 7\n"), &m); err != nil || m.Steal != 0 || m.Busy != 1+2+3+6+7 || m.CPUs != 1 {
		t.Errorf("7 fields: %+v, %v", m, err)
	}
}

// TestMachineLive sees a busy child process's CPU in the machine's busy
// time: what interference is measured with.
func TestMachineLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/stat is Linux's")
	}
	var fs FS
	before, err := fs.Machine()
	if err != nil {
		t.Fatal(err)
	}
	if before.CPUs != runtime.NumCPU() && before.CPUs < 1 {
		t.Errorf("CPUs = %d", before.CPUs)
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	spent := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	after, err := fs.Machine()
	if err != nil {
		t.Fatal(err)
	}
	// The machine's busy time holds the child's (less one tick of
	// rounding per counter).
	if d := after.Since(before); d.Busy+2*(time.Second/TicksPerSecond) < spent {
		t.Errorf("machine busy %v < the child's CPU %v", d.Busy, spent)
	}
}

func FuzzParseMachine(f *testing.F) {
	f.Add([]byte("cpu  41838 0 10757 20115 686 0 132 234 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n"), []byte("1.50 0.75 0.25 3/348 18392\n"))
	f.Add([]byte("cpu 1 2 3 4 5 6 7\n"), []byte("0 0 0"))
	f.Fuzz(func(t *testing.T, stat, loadavg []byte) {
		var m Machine
		if err := parseMachineStat(stat, &m); err != nil {
			return
		}
		if m.CPUs < 1 {
			t.Errorf("CPUs = %d", m.CPUs)
		}
		if d := m.Since(Machine{}); d.Busy < 0 || d.Idle < 0 || d.Steal < 0 {
			t.Errorf("negative delta %+v", d)
		}
		if err := parseLoadavg(loadavg, &m); err == nil && (m.Load1 < 0 || m.Load5 < 0 || m.Load15 < 0) {
			t.Errorf("negative load %+v", m)
		}
	})
}
