package loadtest

import (
	"os"
	"strconv"
	"strings"
)

// KillPIDFile sends SIGKILL (no clean shutdown) to the server whose pid is
// in pidfile and waits until the process is gone: for the tests that kill
// a private server instance during a load. It may be called from any
// goroutine.
func KillPIDFile(pidfile string) error {
	raw, err := os.ReadFile(pidfile)
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return err
	}
	return KillPID(pid)
}
