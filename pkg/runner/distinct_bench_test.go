package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCountDistinct is the distinct-key pass over an input of
// 100,000 cpu rows (TSLOAD_DISTINCT_INPUT names another file, to measure
// a large one), beside a plain read of it (what --do-load=false costs):
// the ratio is the pass's cost against reading the input once.
func BenchmarkCountDistinct(b *testing.B) {
	in := os.Getenv("TSLOAD_DISTINCT_INPUT")
	if in == "" {
		var lines []byte
		for i := range 100_000 {
			lines = fmt.Appendf(lines, "cpu,host=h%d,rack=r%d usage_user=%d.5,usage_system=%di %d\n", i%100, i%7, i, i, 1451606400000000000+int64(i/100)*1e10)
		}
		in = filepath.Join(b.TempDir(), "cpu.ilp")
		if err := os.WriteFile(in, lines, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(in)
	if err != nil {
		b.Fatal(err)
	}
	cfg := baseConfig(in)
	cfg.Workers, cfg.BatchSize = 2, 5000
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var pass, read time.Duration
	for b.Loop() {
		t0 := time.Now()
		r := &run{cfg: cfg, target: overwriting{newFake()}}
		r.cfg.defaults()
		kc, err := r.countDistinct(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		pass += time.Since(t0)
		t0 = time.Now()
		c := cfg
		c.DoLoad, c.Verify = false, false
		if _, err := Run(context.Background(), c, nil); err != nil {
			b.Fatal(err)
		}
		read += time.Since(t0)
		b.ReportMetric(float64(kc.PeakKeys), "keys-in-memory")
		b.ReportMetric(float64(kc.Spilled)/(1<<20), "MiB-spilled")
	}
	b.ReportMetric(pass.Seconds()/read.Seconds(), "pass/read")
	b.ReportMetric(pass.Seconds()/float64(b.N), "pass-s")
}
