package victoriametrics

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/promtext"
)

var (
	_ load.Footprinter     = (*Target)(nil)
	_ load.Flusher         = (*Target)(nil)
	_ load.ServerAddresser = (*Target)(nil)
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

// dedupInterval reads flag{name="dedup.minScrapeInterval"} of a /metrics
// body.
func dedupInterval(body []byte) (time.Duration, error) {
	samples, err := promtext.Samples(body, "flag")
	if err != nil {
		return 0, fmt.Errorf("victoriametrics: /metrics: %w", err)
	}
	for _, s := range samples {
		if s.Labels["name"] == "dedup.minScrapeInterval" {
			d, err := time.ParseDuration(s.Labels["value"])
			if err != nil {
				return 0, fmt.Errorf("victoriametrics: /metrics: dedup.minScrapeInterval %q: %v", s.Labels["value"], err)
			}
			return d, nil
		}
	}
	return 0, fmt.Errorf("victoriametrics: /metrics has no flag dedup.minScrapeInterval (not a VictoriaMetrics single-node server?)")
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

// Footprint (load.Footprinter) is the server's own account of its files:
// the sum of vm_data_size_bytes on /metrics (samples and index, the
// in-memory parts included), after /internal/force_flush (rows not yet
// in a part are not counted). VictoriaMetrics accounts for the whole
// server, every db label together: the figure is the load's only on a
// server that holds nothing else.
func (t *Target) Footprint(ctx context.Context, _ []string) (load.Size, error) {
	sz := load.Size{Method: "VictoriaMetrics /metrics vm_data_size_bytes, all types, after /internal/force_flush (the whole server, every db label)"}
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

// FlushStorage (load.Flusher) asks /internal/force_flush, which writes the
// rows still in memory to parts the size counts.
func (t *Target) FlushStorage(ctx context.Context, _ []string) (string, error) {
	return "GET /internal/force_flush", t.forceFlush(ctx)
}

// ServerAddr (load.ServerAddresser) is the host:port of the first URL.
func (t *Target) ServerAddr() string { return httpwrite.HostPort(t.cfg.URLs[0]) }
