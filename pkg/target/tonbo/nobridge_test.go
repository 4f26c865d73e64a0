//go:build !tonbo || !cgo

package tonbo

import (
	"context"
	"errors"
	"testing"

	"github.com/tsload/tsload/pkg/load"
)

// TestNoBridge: built without the bridge, the target is made (flags are
// checked) and every load says how to get the bridge.
func TestNoBridge(t *testing.T) {
	tg, err := New(Config{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tg.Ping(ctx); !errors.Is(err, ErrNoBridge) {
		t.Errorf("Ping: %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{CreateDB: true}); !errors.Is(err, ErrNoBridge) {
		t.Errorf("Prepare: %v", err)
	}
	if _, err := tg.NewWriter(ctx, 0); !errors.Is(err, ErrNoBridge) {
		t.Errorf("NewWriter: %v", err)
	}
}
