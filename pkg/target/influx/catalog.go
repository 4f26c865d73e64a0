package influx

import (
	"time"
)

// LineUnit (load.Hooks.LineUnit) is the unit of the lines' timestamps: the
// precision the writes name.
func (t *Target) LineUnit() time.Duration {
	switch t.cfg.Precision {
	case "u":
		return time.Microsecond
	case "ms":
		return time.Millisecond
	case "s":
		return time.Second
	case "m":
		return time.Minute
	case "h":
		return time.Hour
	}
	return time.Nanosecond
}
