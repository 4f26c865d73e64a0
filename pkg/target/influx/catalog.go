package influx

import (
	"time"

	"github.com/tsload/tsload/pkg/format"
)

// LineUnit (load.Hooks.LineUnit) is the unit of the lines' timestamps: the
// precision the writes name (Validate refused any other).
func (t *Target) LineUnit() time.Duration {
	if u, err := format.ParseUnit(t.cfg.Precision); err == nil {
		return u
	}
	return time.Nanosecond
}
