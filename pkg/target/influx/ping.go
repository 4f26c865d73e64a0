package influx

import (
	"context"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Ping (load.Target.Ping) checks once that InfluxDB listens at every URL.
func (t *Target) Ping(ctx context.Context) error {
	return httpwrite.ReachURLs(ctx, "InfluxDB", t.cfg.URLs)
}
