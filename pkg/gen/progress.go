package gen

import (
	"fmt"
	"time"

	"github.com/tsload/tsload/pkg/periodic"
)

// startProgress prints progress on Stderr until the returned function is
// called; that function prints the final line.
func (p *pipeline) startProgress() func(ok bool, st Stats) {
	cfg := p.cfg
	if !cfg.Progress {
		return func(bool, Stats) {}
	}
	began := time.Now()
	period := 10 * time.Second
	if cfg.ProgressTTY {
		period = time.Second
	}
	stop := periodic.Every(period, func() { p.printProgress(began, false) })
	return func(ok bool, st Stats) {
		stop()
		if cfg.ProgressTTY {
			fmt.Fprint(cfg.Stderr, "\r\033[K")
		}
		if !ok {
			return
		}
		secs := max(st.Elapsed.Seconds(), 1e-9)
		fmt.Fprintf(cfg.Stderr, "generate_data: %d rows, %s, %d epochs in %.1fs (%.0f rows/s, %.1f MB/s uncompressed)\n",
			st.Rows, humanBytes(st.Bytes), st.Epochs, secs, float64(st.Rows)/secs, float64(st.Bytes)/secs/1e6)
	}
}

func (p *pipeline) printProgress(began time.Time, _ bool) {
	cfg := p.cfg
	rows, b, e := p.rows.Load(), p.bytes.Load(), p.epochsDone.Load()
	secs := max(time.Since(began).Seconds(), 1e-9)
	pct := 100 * float64(e) / float64(max(p.epochs, 1))
	line := fmt.Sprintf("generate_data: %5.1f%% %d rows %s %.0f rows/s", pct, rows, humanBytes(b), float64(rows)/secs)
	if cfg.ProgressTTY {
		fmt.Fprintf(cfg.Stderr, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(cfg.Stderr, line)
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
