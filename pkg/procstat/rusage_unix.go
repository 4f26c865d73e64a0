//go:build unix

package procstat

import (
	"syscall"
	"time"
)

// selfRusage is the calling process's CPU time (user + system) from
// getrusage, in microseconds.
func selfRusage() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
