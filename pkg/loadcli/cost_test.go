package loadcli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/cost"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

func TestCostFlags(t *testing.T) {
	path := writeILP(t)
	var calls int
	var cfg runner.Config
	err := Run(context.Background(), spec(&calls, &cfg), []string{"load_test", "--file", path, "--do-load=false",
		"--server-pid", "4321", "--server-data-dir", "/srv/db", "--footprint-settle", "15s"}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := cost.Config{ServerPID: 4321, ServerDataDir: "/srv/db", FootprintSettle: 15 * time.Second}
	if cfg.Cost != want {
		t.Errorf("cost config %+v, want %+v", cfg.Cost, want)
	}
	for _, bad := range [][]string{{"--server-pid", "-1"}, {"--footprint-settle", "-1s"}} {
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test", "--file", path, "--do-load=false"}, bad...), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), bad[0]+" must not be negative") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// memTarget takes every batch and counts its rows.
type memTarget struct {
	load.Unsupported
	rows map[string]int64
}

func (m *memTarget) Accepts(format.Format) error                        { return nil }
func (m *memTarget) Prepare(context.Context, load.PrepareOptions) error { return nil }
func (m *memTarget) NewWriter(context.Context, int) (load.Writer, error) {
	return memWriter{m}, nil
}
func (m *memTarget) Count(_ context.Context, tables []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, t := range tables {
		out[t] = m.rows[t]
	}
	return out, nil
}
func (m *memTarget) Close() error { return nil }

type memWriter struct{ m *memTarget }

func (w memWriter) Write(_ context.Context, b *load.Batch) (load.Ack, error) {
	time.Sleep(20 * time.Millisecond) // a load long enough for a few samples
	for _, t := range b.Tables {
		w.m.rows[t.Name] += t.Rows
	}
	return load.Ack{Rows: b.Rows}, nil
}
func (w memWriter) Close() error { return nil }

// TestServerPIDFlag: --server-pid of a process the test started is
// sampled, and its CPU and RSS land in the results file.
func TestServerPIDFlag(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for a child that burns CPU")
	}
	cmd := exec.Command("python3", "-c", "b = bytearray(64 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('ready', flush=True)\nwhile True: pass\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	path := writeILP(t)
	res := filepath.Join(t.TempDir(), "r.json")
	m := &memTarget{rows: map[string]int64{}}
	sp := Spec{Name: "load_test", Target: "test", New: func(*cli.Context, runner.Config) (load.Target, Overrides, error) { return m, Overrides{}, nil }}
	err = Run(context.Background(), sp, []string{"load_test", "--file", path, "--batch-size", "100", "--workers", "1",
		"--reporting-period", "100ms", "--server-pid", strconv.Itoa(cmd.Process.Pid), "--results-file", res}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	s := r.Cost.Server
	if s == nil || s.PID != cmd.Process.Pid || s.CPUSeconds <= 0 || s.CPUSeconds > r.Seconds+0.5 || s.RSSPeakBytes < 64<<20 || r.Flags["server-pid"] != float64(cmd.Process.Pid) {
		t.Errorf("server cost %+v over %.2fs, flags %v", s, r.Seconds, r.Flags["server-pid"])
	}
}
