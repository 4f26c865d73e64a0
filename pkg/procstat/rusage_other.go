//go:build !unix

package procstat

import "time"

// selfRusage: no getrusage here; Self keeps /proc's ticks.
func selfRusage() (time.Duration, bool) { return 0, false }
