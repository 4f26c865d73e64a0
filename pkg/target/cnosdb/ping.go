package cnosdb

import (
	"context"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

var _ load.Pinger = (*Target)(nil)

// Ping (load.Pinger) checks once that CnosDB listens at every URL.
func (t *Target) Ping(ctx context.Context) error {
	return httpwrite.ReachURLs(ctx, "CnosDB", t.cfg.URLs)
}
