package influx

import (
	"context"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

var _ load.Pinger = (*Target)(nil)

// Ping (load.Pinger) checks once that InfluxDB listens at every URL.
func (t *Target) Ping(ctx context.Context) error {
	addrs := make([]string, len(t.cfg.URLs))
	for i, u := range t.cfg.URLs {
		addrs[i] = httpwrite.HostPort(u)
	}
	return httpwrite.Reach(ctx, "InfluxDB", addrs...)
}
