//go:build unix

package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPace1MRowsPerSec is the pacing alone at 1M rows/s: each
// iteration is one batch falling due, sent and acknowledged (the pacer's
// hooks on the reader and the worker). Wall time per op is the schedule's
// (batch/1e6 s); %cpu and cpu-ns/batch are what the pacing costs.
func BenchmarkPace1MRowsPerSec(b *testing.B) {
	for _, batch := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			st := &workerStats{tables: map[string]int64{}, hist: newHistogram()}
			r := &run{cfg: Config{Pace: Pace{Rate: 1e6}, BatchSize: batch, Workers: 1}, workers: []*workerStats{st}}
			r.start = time.Now()
			p := r.newPacer()
			ctx := context.Background()
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			b.ResetTimer()
			for range b.N {
				due, _, _ := p.wait(ctx, batch)
				p.taken(batch)
				p.acked(0, due, time.Millisecond)
			}
			b.StopTimer()
			cpu := cpuTime(b) - cpu0
			b.ReportMetric(100*cpu.Seconds()/b.Elapsed().Seconds(), "%cpu")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/batch")
			if late := time.Since(r.start) - p.sched.at(float64(p.cut)); late > 50*time.Millisecond {
				b.Logf("the loop ended %s after the last batch's due time", late)
			}
		})
	}
	// The floor of any timer: a goroutine asleep 1 ms at a time, as
	// batch=1000 is (the runtime's cost of waking).
	b.Run("sleep-1ms", func(b *testing.B) {
		cpu0 := cpuTime(b)
		for range b.N {
			time.Sleep(time.Millisecond)
		}
		cpu := cpuTime(b) - cpu0
		b.ReportMetric(100*cpu.Seconds()/b.Elapsed().Seconds(), "%cpu")
	})
	// The baseline: the process asleep for as long, in one sleep (what
	// the runtime and the benchmark cost without pacing).
	b.Run("idle", func(b *testing.B) {
		cpu0 := cpuTime(b)
		time.Sleep(time.Duration(b.N) * time.Millisecond)
		cpu := cpuTime(b) - cpu0
		b.ReportMetric(100*cpu.Seconds()/b.Elapsed().Seconds(), "%cpu")
	})
}

// ilpStream generates n ILP lines without a file.
type ilpStream struct {
	n, i int
	buf  []byte
}

func (s *ilpStream) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) && s.i < s.n {
		s.buf = fmt.Appendf(s.buf, "cpu,host=h%d v=%d.5 %d\n", s.i%100, s.i, 1704067200000000000+int64(s.i)*1e6)
		s.i++
	}
	if len(s.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.buf)
	s.buf = s.buf[:copy(s.buf, s.buf[n:])]
	return n, nil
}

// BenchmarkScheduleHolds runs a paced load (no server: all headroom) for
// TSLOAD_PACE_SECONDS (default 30) at TSLOAD_PACE_RATE rows/s (default
// 100000) and reports achieved/offered in percent: the schedule holds when
// it is within 1% of 100.
func BenchmarkScheduleHolds(b *testing.B) {
	secs, rate := 30.0, 100000.0
	if v, err := strconv.ParseFloat(os.Getenv("TSLOAD_PACE_SECONDS"), 64); err == nil {
		secs = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("TSLOAD_PACE_RATE"), 64); err == nil {
		rate = v
	}
	for range b.N {
		cfg := Config{Stdin: &ilpStream{n: int(secs * rate)}, BatchSize: 5000, Workers: 4, ReportingPeriod: time.Hour,
			Stderr: io.Discard, Pace: Pace{Rate: rate}}
		cpu0 := cpuTime(b)
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(100*res.Pace.AchievedRowsPerSec/rate, "achieved-%")
		b.ReportMetric(res.Pace.LatencyFromDue.P99, "p99-from-due-ms")
		b.ReportMetric(100*(cpuTime(b)-cpu0).Seconds()/res.Seconds, "%cpu")
	}
}
