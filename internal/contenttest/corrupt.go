package contenttest

import (
	"context"
	"fmt"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
)

// Corrupting is a target that changes what the database holds behind the
// loader's back: once the last batch is acknowledged and before the
// runner verifies (load.Finisher), it calls Corrupt. Everything else is
// the wrapped target's, including its optional abilities (Finish, Await,
// Overwrites, Content).
type Corrupting struct {
	load.Target
	Corrupt func(ctx context.Context) error
}

var (
	_ load.Finisher       = Corrupting{}
	_ load.Awaiter        = Corrupting{}
	_ load.Overwriter     = Corrupting{}
	_ load.ContentCounter = Corrupting{}
)

// Finish finishes the wrapped target, then corrupts.
func (c Corrupting) Finish(ctx context.Context) error {
	if f, ok := c.Target.(load.Finisher); ok {
		if err := f.Finish(ctx); err != nil {
			return err
		}
	}
	if c.Corrupt == nil {
		return nil
	}
	if err := c.Corrupt(ctx); err != nil {
		return fmt.Errorf("corrupting the database: %w", err)
	}
	return nil
}

// Await is the wrapped target's, if it has one.
func (c Corrupting) Await(ctx context.Context, want map[string]int64) error {
	if a, ok := c.Target.(load.Awaiter); ok {
		return a.Await(ctx, want)
	}
	return nil
}

// Overwrites is the wrapped target's.
func (c Corrupting) Overwrites() bool {
	o, ok := c.Target.(load.Overwriter)
	return ok && o.Overwrites()
}

// Content is the wrapped target's.
func (c Corrupting) Content(ctx context.Context, q []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	return c.Target.(load.ContentCounter).Content(ctx, q)
}
