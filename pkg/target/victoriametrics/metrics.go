package victoriametrics

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/promtext"
)

// metrics reads the server's /metrics.
func (t *Target) metrics(ctx context.Context) ([]byte, error) {
	res, err := t.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/metrics", Accept: "text/plain", NoCompress: true})
	if err != nil {
		return nil, fmt.Errorf("victoriametrics: GET /metrics: %w", err)
	}
	if res.Status != 200 || res.Truncated {
		return nil, fmt.Errorf("victoriametrics: GET /metrics: %d %s (truncated %v)", res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	return res.Body, nil
}

// readDedup is the server's -dedup.minScrapeInterval (0: off).
func (t *Target) readDedup(ctx context.Context) (time.Duration, error) {
	m, err := t.metrics(ctx)
	if err != nil {
		return 0, err
	}
	return dedupInterval(m)
}

// flagValue is the value of flag{name=name} of a /metrics body.
func flagValue(body []byte, name string) (string, error) {
	samples, err := promtext.Samples(body, "flag")
	if err != nil {
		return "", fmt.Errorf("victoriametrics: /metrics: %w", err)
	}
	for _, s := range samples {
		if s.Labels["name"] == name {
			return s.Labels["value"], nil
		}
	}
	return "", fmt.Errorf("victoriametrics: /metrics has no flag %s (not a VictoriaMetrics single-node server?)", name)
}

// keeps is the first and last millisecond a server of this /metrics body
// keeps at now: from now - -retentionPeriod (or -maxBackfillAge when set),
// at least a day after 1970 (the storage's floor), plus an hour of margin
// for a long load, to now + -futureRetention.
func keeps(body []byte, now time.Time) (minMs, maxMs int64, err error) {
	var age, future time.Duration
	for _, f := range []struct {
		name string
		d    *time.Duration
	}{{"retentionPeriod", &age}, {"futureRetention", &future}} {
		v, err := flagValue(body, f.name)
		if err != nil {
			return 0, 0, err
		}
		if *f.d, err = retention(v); err != nil {
			return 0, 0, fmt.Errorf("victoriametrics: /metrics: %s %q: %v", f.name, v, err)
		}
	}
	if v, err := flagValue(body, "maxBackfillAge"); err == nil {
		if d, err := retention(v); err == nil && d > 0 && d < age {
			age = d
		}
	}
	const day = 24 * time.Hour
	minMs = max(now.Add(-age).Add(time.Hour).UnixMilli(), day.Milliseconds())
	return minMs, now.Add(future).UnixMilli(), nil
}

// retention reads a VictoriaMetrics retention duration: a number with a
// unit (s, m, h, d, w, y) or without one (months of 31 days).
func retention(v string) (time.Duration, error) {
	num := strings.TrimRight(v, "smhdwy")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("not a duration")
	}
	unit := map[string]time.Duration{"": 31 * 24 * time.Hour, "s": time.Second, "m": time.Minute, "ms": time.Millisecond,
		"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "y": 365 * 24 * time.Hour}[v[len(num):]]
	if unit == 0 {
		return 0, fmt.Errorf("unknown unit")
	}
	if f*float64(unit) > float64(math.MaxInt64) {
		return math.MaxInt64, nil
	}
	return time.Duration(f * float64(unit)), nil
}

// dedupInterval reads flag{name="dedup.minScrapeInterval"} of a /metrics
// body.
func dedupInterval(body []byte) (time.Duration, error) {
	v, err := flagValue(body, "dedup.minScrapeInterval")
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("victoriametrics: /metrics: dedup.minScrapeInterval %q: %v", v, err)
	}
	return d, nil
}

// appVersion is vm_app_version's version label.
func appVersion(body []byte) (string, error) {
	samples, err := promtext.Samples(body, "vm_app_version")
	if err != nil {
		return "", fmt.Errorf("victoriametrics: /metrics: %w", err)
	}
	for _, s := range samples {
		if v := s.Labels["version"]; v != "" {
			return v, nil
		}
	}
	return "", fmt.Errorf("victoriametrics: /metrics: vm_app_version has no version (a build without -ldflags -X ...buildinfo.Version)")
}

// Footprint is the server's own account of its files:
// the sum of vm_data_size_bytes on /metrics (samples and index, the
// in-memory parts included), after /internal/force_flush (rows not yet
// in a part are not counted). VictoriaMetrics accounts for the whole
// server, every db label together: the figure is the load's only on a
// server that holds nothing else.
func (t *Target) Footprint(ctx context.Context, _ []string) (load.Size, error) {
	sz := load.Size{Method: "VictoriaMetrics /metrics vm_data_size_bytes, all types, after /internal/force_flush (the whole server, every db label)",
		Mark: results.MarkWholeServer}
	if err := t.forceFlush(ctx); err != nil {
		return sz, err
	}
	m, err := t.metrics(ctx)
	if err != nil {
		return sz, err
	}
	samples, err := promtext.Samples(m, "vm_data_size_bytes")
	if err != nil {
		return sz, fmt.Errorf("victoriametrics: /metrics: %w", err)
	}
	for _, s := range samples {
		sz.Bytes += int64(s.Value)
	}
	if len(samples) == 0 {
		return sz, fmt.Errorf("victoriametrics: /metrics has no vm_data_size_bytes")
	}
	return sz, nil
}

// FlushStorage (load.Hooks) asks /internal/force_flush, which writes the
// rows still in memory to parts the size counts.
func (t *Target) FlushStorage(ctx context.Context, _ []string) (string, error) {
	return "GET /internal/force_flush", t.forceFlush(ctx)
}

// ServerAddr is the host:port of the first URL.
func (t *Target) ServerAddr() string { return httpwrite.HostPort(t.cfg.URLs[0]) }
