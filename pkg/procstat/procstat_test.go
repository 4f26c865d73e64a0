package procstat

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fixed is a proc tree in testdata: a PostgreSQL-like tree 100 -> 101 ->
// 102 listening on 5432 (both 100 and 101 hold the socket, as forked
// children do), influxd (200) on 8086 over IPv6, and the caller (self ->
// 300).
var fixed = FS{Root: "testdata/proc", PageSize: 4096}

func TestTreeFixed(t *testing.T) {
	u, err := fixed.Tree(100)
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{
		Root: 100, Procs: 3,
		// utime+cutime: 150+1000, 300, 10 ticks; stime+cstime: 50+500, 100, 20.
		User: 14600 * time.Millisecond, System: 6700 * time.Millisecond,
		// Own pages 7000+1000+500, shared ones once (the most, 33000).
		RSS: (8500 + 33000) * 4096,
		// 102 has no io file: the sums leave it out and say so.
		ReadBytes: 4096 + 1024, WriteBytes: 8192 + 1048576, IO: false,
	}
	if u != want {
		t.Errorf("Tree(100) = %+v\nwant         %+v", u, want)
	}
	if u.CPU() != 21300*time.Millisecond {
		t.Errorf("CPU = %v", u.CPU())
	}
	// A leaf is a tree of one.
	u, err = fixed.Tree(200)
	if err != nil {
		t.Fatal(err)
	}
	if u.Procs != 1 || u.CPU() != 10*time.Second || u.RSS != 25000*4096 || !u.IO {
		t.Errorf("Tree(200) = %+v", u)
	}
}

func TestProcessFixed(t *testing.T) {
	p, err := fixed.Process(100)
	if err != nil {
		t.Fatal(err)
	}
	if p.Comm != "post (master))" || p.PPID != 1 || p.RSS != 7000*4096 || p.Shared != 33000*4096 || !p.IO {
		t.Errorf("Process(100) = %+v", p)
	}
	if _, err := fixed.Process(999); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Process(999): %v, want ErrNoProcess", err)
	}
	if _, err := fixed.Tree(999); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Tree(999): %v, want ErrNoProcess", err)
	}
}

func TestListeningPIDFixed(t *testing.T) {
	for _, tc := range []struct {
		port int
		pid  int
		err  string
	}{
		{5432, 100, ""}, // held by 100 and its child 101: the root
		{8086, 200, ""}, // IPv6
		{8080, 0, "no readable /proc/<pid>/fd holds it"},
		{54321, 0, "no local process listens"}, // 0xD431 is only a peer's port
		{9999, 0, "no local process listens"},
	} {
		pid, err := fixed.ListeningPID(tc.port)
		if tc.err == "" && (err != nil || pid != tc.pid) {
			t.Errorf("port %d: %d, %v; want %d", tc.port, pid, err, tc.pid)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("port %d: %d, %v; want an error with %q", tc.port, pid, err, tc.err)
		}
	}
	if _, err := fixed.ListeningPID(9999); !errors.Is(err, ErrNotListening) {
		t.Errorf("want ErrNotListening, got %v", err)
	}
}

func TestSelfFixed(t *testing.T) {
	cpu, peak, err := fixed.Self()
	if err != nil || cpu != 3*time.Second || peak != 45000*1024 {
		t.Errorf("Self() = %v, %d, %v", cpu, peak, err)
	}
}

func TestParseErrors(t *testing.T) {
	var p Proc
	for _, s := range []string{"", "1 comm S 1", "1 (x) S 1 2 3", "1 (x) S a 1 1 0 -1 0 0 0 0 0 1 1 1 1 20", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 x 1 1 1 20"} {
		if err := parseStat([]byte(s), &p); err == nil {
			t.Errorf("parseStat(%q): no error", s)
		}
	}
	for _, s := range []string{"1 2", "1 x 2 3", "1 2 y 4"} {
		if err := parseStatm([]byte(s), 4096, &p); err == nil {
			t.Errorf("parseStatm(%q): no error", s)
		}
	}
	if _, err := kB([]byte("VmHWM:\t12 MB")); err == nil {
		t.Error("kB: a unit other than kB accepted")
	}
	if err := parseIO([]byte("rchar: 1\n"), &p); err == nil {
		t.Error("parseIO: missing read_bytes accepted")
	}
	in := map[string]bool{}
	if err := listeners([]byte("header\n 0: 0100007F 00000000:0000 0A 0 0 0 0 0 1\n"), 1, in); err == nil {
		t.Error("listeners: an address without port accepted")
	}
}

// TestLive checks the live /proc against what a child the test started
// must have spent: CPU of a busy loop, memory it holds.
func TestLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to burn CPU in a child")
	}
	// The child holds 64 MiB and spins for 1.5 s of CPU, then sleeps.
	cmd := exec.Command("python3", "-c", `
import time, os
b = bytearray(64 << 20)
for i in range(0, len(b), 4096): b[i] = 1
t = time.process_time()
while time.process_time() - t < 1.5: pass
print("ready", flush=True)
time.sleep(60)
`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	var fs FS
	u, err := fs.Tree(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if u.CPU() < 1400*time.Millisecond || u.CPU() > 10*time.Second {
		t.Errorf("child CPU %v, want about 1.5s", u.CPU())
	}
	if u.RSS < 64<<20 || u.RSS > 512<<20 {
		t.Errorf("child RSS %d, want above 64 MiB", u.RSS)
	}
	// Our own tree holds the child.
	self, err := fs.Tree(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self.Procs < 2 || self.CPU() < u.CPU() {
		t.Errorf("Tree(self) = %+v does not include the child %+v", self, u)
	}
	if cpu, peak, err := fs.Self(); err != nil || cpu < 0 || peak <= 0 {
		t.Errorf("Self() = %v, %d, %v", cpu, peak, err)
	}
}

func FuzzParseStat(f *testing.F) {
	b, _ := os.ReadFile("testdata/proc/100/stat")
	f.Add(b)
	f.Add([]byte("1 (a) b) S 1 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Proc
		if parseStat(b, &p) == nil && (p.User < 0 || p.System < 0) {
			t.Errorf("negative times from %q", b)
		}
		parseStatm(b, 4096, &p)
		kB(b)
		parseIO(b, &p)
		listeners(b, 5432, map[string]bool{})
	})
}

// BenchmarkTree is the cost of one sample of a server: the process list
// scanned, the tree's stat, status and io read. A sample per second costs
// the loader this many ns per second of its run.
func BenchmarkTree(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("/proc is Linux's")
	}
	var fs FS
	var r reader
	pid := os.Getppid() // the go command: a process with many threads, like a server
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fs.tree(pid, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSelfMicroseconds: the loader's own CPU time has getrusage's
// resolution, so a little work measures more than nothing (/proc counts
// ticks of 10 ms, and a short load measured 0): of a few samples, one at
// least is not a whole number of ticks.
func TestSelfMicroseconds(t *testing.T) {
	var fs FS
	if _, _, err := fs.Self(); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	x := uint64(1)
	for n := 0; n < 20; n++ {
		for i := 0; i < 1e5; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		cpu, _, err := fs.Self()
		if err != nil {
			t.Fatal(err)
		}
		if cpu%(time.Second/TicksPerSecond) != 0 {
			return
		}
	}
	t.Errorf("20 samples of Self's CPU time were whole ticks of 10 ms (%d): not getrusage's microseconds", x%2)
}
