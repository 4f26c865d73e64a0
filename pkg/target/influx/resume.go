package influx

import (
	"context"

	"github.com/tsload/tsload/pkg/load"
)

// InDoubt: InfluxDB stores a point with the series and timestamp of one it
// holds in its place (the same fields), so a resumed load sends the
// batches in doubt again.
func (t *Target) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return load.ResendInDoubt, nil
}
