package split

import (
	"context"
	"io"
	"testing"

	"github.com/tsload/tsload/pkg/gen"
)

// generate runs generate_data's generator with cfg (its messages
// discarded unless cfg.Stderr is set) and fails the test on an error.
func generate(t testing.TB, cfg gen.Config) {
	t.Helper()
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if _, err := gen.Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}
