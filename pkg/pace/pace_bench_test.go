//go:build unix

package pace

import (
	"context"
	"fmt"
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
			start := time.Now()
			p := New(Pace{Rate: 1e6}, start, batch, 1)
			ctx := context.Background()
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			b.ResetTimer()
			for range b.N {
				due, _, _ := p.Wait(ctx, batch)
				p.Taken(batch)
				p.Acked(0, due, time.Millisecond)
			}
			b.StopTimer()
			cpu := cpuTime(b) - cpu0
			b.ReportMetric(100*cpu.Seconds()/b.Elapsed().Seconds(), "%cpu")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/batch")
			if late := time.Since(start) - p.sched.at(float64(p.cut)); late > 50*time.Millisecond {
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
