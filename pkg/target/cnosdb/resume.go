package cnosdb

import (
	"context"

	"github.com/tsload/tsload/pkg/load"
)

// InDoubt: CnosDB stores a point with the series and timestamp of one it
// holds in its place, so a resumed load sends the batches in doubt again.
func (t *Target) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return load.ResendInDoubt, nil
}
