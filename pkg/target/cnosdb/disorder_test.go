package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/disordertest"
)

// TestDisorder loads generate_data's out-of-order and repeated files and
// verifies them, by count and by content: CnosDB stores one point per
// (series, time) key.
func TestDisorder(t *testing.T) {
	disordertest.Suite(t, suite(t), false)
}
