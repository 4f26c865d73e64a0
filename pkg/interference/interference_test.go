package interference

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/procstat"
)

// at is a sample whose busy, idle and steal are in seconds (100 ticks).
func at(busy, idle, steal float64, load float64) Sample {
	t := func(s float64) uint64 { return uint64(s * procstat.TicksPerSecond) }
	return Sample{Machine: procstat.Machine{Busy: t(busy), Idle: t(idle), Steal: t(steal), CPUs: 2, Load1: load}}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name      string
		w         Window
		cores     float64
		disturbed bool
		reason    string
	}{
		{
			// 10 s on 2 CPUs: 20 s of processor time, 13 busy, of which the
			// loader 4 and the server 8.6: 0.04 cores of other work.
			name:  "quiet",
			w:     Window{Start: at(100, 100, 0, 0.2), End: at(113, 107, 0, 1.9), Wall: 10 * time.Second, Loader: 4 * time.Second, Server: 8600 * time.Millisecond},
			cores: 0.04,
		},
		{
			name:  "busy loop beside",
			w:     Window{Start: at(100, 100, 0, 0.2), End: at(120, 100, 0, 3), Wall: 10 * time.Second, Loader: 4 * time.Second, Server: 6 * time.Second},
			cores: 1, disturbed: true, reason: "interference 1.00 cores > 0.50",
		},
		{
			name:  "stolen",
			w:     Window{Start: at(100, 100, 0, 0.2), End: at(110, 107, 3, 1), Wall: 10 * time.Second, Loader: 4 * time.Second, Server: 6 * time.Second},
			cores: 0, disturbed: true, reason: "steal 15% > 10%",
		},
		{
			// An embedded database: the server's tree is the loader
			// itself, so its CPU is taken away once. 13 busy, 5 of them
			// the loader's: 0.8 cores of other work.
			name:  "embedded, busy loop beside",
			w:     Window{Start: at(100, 100, 0, 0.2), End: at(113, 107, 0, 1.9), Wall: 10 * time.Second, Loader: 5 * time.Second, Server: 5 * time.Second, ServerIsLoader: true},
			cores: 0.8, disturbed: true, reason: "interference 0.80 cores > 0.50",
		},
		{
			// A local server whose process was not found: its CPU is in
			// the figure, so the figure is not judged.
			name:  "server unobserved",
			w:     Window{Start: at(100, 100, 0, 0.2), End: at(113, 107, 0, 1.9), Wall: 10 * time.Second, Loader: 4 * time.Second, ServerUnobserved: "pid 7: permission denied"},
			cores: 0.9,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Judge(tc.w)
			if in.NotMeasured != "" || in.Disturbed != tc.disturbed || in.Reason != tc.reason || abs(in.Cores-tc.cores) > 1e-9 {
				t.Errorf("Judge = %+v, want cores %.2f disturbed %v %q", in, tc.cores, tc.disturbed, tc.reason)
			}
			if tc.w.ServerUnobserved != "" && !strings.HasPrefix(in.Unobserved, tc.w.ServerUnobserved) {
				t.Errorf("Unobserved = %q does not say what was not observed", in.Unobserved)
			}
		})
	}
	in := Judge(Window{Start: Sample{Err: errors.New("no /proc")}, Wall: time.Second})
	if !strings.Contains(in.NotMeasured, "no /proc") || in.Disturbed {
		t.Errorf("unreadable machine: %+v", in)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestBusyLoopDisturbs runs the threshold's defining case on this machine:
// a shell busy loop on one core beside a load that spends nothing is
// judged disturbed. (Other work on the machine only adds to it.)
func TestBusyLoopDisturbs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/stat is Linux's")
	}
	var fs procstat.FS
	cpu0, _, err := fs.Self()
	if err != nil {
		t.Fatal(err)
	}
	start, t0 := Take(fs), time.Now()
	loop := exec.Command("sh", "-c", "while :; do :; done")
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	end, wall := Take(fs), time.Since(t0)
	loop.Process.Kill()
	loop.Wait()
	cpu1, _, err := fs.Self()
	if err != nil {
		t.Fatal(err)
	}
	in := Judge(Window{Start: start, End: end, Wall: wall, Loader: cpu1 - cpu0})
	if !in.Disturbed {
		t.Errorf("a busy loop beside: %+v", in)
	}
}
