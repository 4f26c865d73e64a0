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

	"github.com/tsload/tsload/pkg/pace"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
			Stderr: io.Discard, Pace: pace.Pace{Rate: rate}}
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
