package victoriametrics

import (
	"testing"

	"github.com/tsload/tsload/internal/disordertest"
)

// TestDisorder loads generate_data's out-of-order and repeated files and
// verifies them: with -dedup.minScrapeInterval=1ms (the start script's)
// VictoriaMetrics keeps one sample per series and millisecond, so one row
// per (series, time) key.
func TestDisorder(t *testing.T) {
	disordertest.Suite(t, suite(t), false)
}
