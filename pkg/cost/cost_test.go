package cost

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/procstat"
)

// BenchmarkCostSample is one sample of a server's tree, as the engine
// takes it about once a second during a load: ns/op is then its cost per
// second of loading, reported as a share of one core ("core%@1Hz"; the
// loader itself keeps one or more cores busy). It samples the servers of
// the project's start scripts that run here (PostgreSQL: a tree of
// processes; QuestDB: one JVM with many threads), and this process.
func BenchmarkCostSample(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("/proc is Linux's")
	}
	var fsys procstat.FS
	for _, srv := range []struct {
		name string
		port int
	}{{"self", 0}, {"postgres", 5432}, {"questdb", 9000}, {"influxdb", 8086}, {"cnosdb", 8902}} {
		pid := os.Getpid()
		if srv.port > 0 {
			var err error
			if pid, err = fsys.ListeningPID(srv.port); err != nil {
				continue
			}
		}
		b.Run(srv.name, func(b *testing.B) {
			var c Meter
			c.Start(Config{ServerPID: pid}, true, "", time.Hour)
			defer c.Stop()
			if c.notMeasured != "" {
				b.Fatal(c.notMeasured)
			}
			b.ReportAllocs()
			t0 := time.Now()
			for b.Loop() {
				c.sample(fsys)
			}
			b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N)/1e9*100, "core%@1Hz")
			b.ReportMetric(float64(c.procs), "procs")
		})
	}
}

func TestLocalHost(t *testing.T) {
	for host, want := range map[string]bool{"": true, "localhost": true, "127.0.0.1": true, "::1": true, "0.0.0.0": true, "192.0.2.7": false} {
		if got := localHost(host); got != want {
			t.Errorf("localHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestMeterWithoutServer: a run that sends nothing says the server was not
// measured, and measures the loader alone.
func TestMeterWithoutServer(t *testing.T) {
	var m Meter
	m.Start(Config{}, false, "127.0.0.1:1", time.Hour)
	defer m.Stop()
	if s := m.Server(10); s.NotMeasured != "nothing sent to a server" {
		t.Errorf("server %+v", s)
	}
	if p := m.Period(); p != nil {
		t.Errorf("period %+v", p)
	}
	if l := m.Loader(10); runtime.GOOS == "linux" && (l.NotMeasured != "" || l.RSSPeakBytes <= 0 || l.CPUSeconds < 0) {
		t.Errorf("loader %+v", l)
	}
}
