package format

import (
	"fmt"
	"time"
)

// ParseUnit reads the unit of integer timestamps (a precision) in the
// spellings tsload's flags take, InfluxDB's (n, u, ms, s, m, h) and Go's
// (ns, us, µs): one parser for --precision, --time-unit and the targets
// that write lines in a unit of their own.
func ParseUnit(s string) (time.Duration, error) {
	switch s {
	case "n", "ns":
		return time.Nanosecond, nil
	case "u", "us", "µs":
		return time.Microsecond, nil
	case "ms":
		return time.Millisecond, nil
	case "s":
		return time.Second, nil
	case "m":
		return time.Minute, nil
	case "h":
		return time.Hour, nil
	}
	return 0, fmt.Errorf("unknown time unit %q (want ns, us, ms, s, m or h)", s)
}

// ParseEpochUnit parses the unit of numeric epoch timestamps (a tabular
// input's time column: --time-unit): s, ms, us or ns, as ParseUnit spells
// them. Parsed once, where the setting is read; everything after takes the
// Duration.
func ParseEpochUnit(s string) (time.Duration, error) {
	u, err := ParseUnit(s)
	if err != nil || u > time.Second {
		return 0, fmt.Errorf("time unit %q: want s, ms, us or ns", s)
	}
	return u, nil
}
