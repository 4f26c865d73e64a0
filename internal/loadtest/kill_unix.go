//go:build unix

package loadtest

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// KillPID sends SIGKILL to pid and waits (up to 10 s) until it is gone.
func KillPID(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	for i := 0; i < 400; i++ {
		if !Alive(pid) {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return fmt.Errorf("pid %d still alive 10 s after SIGKILL", pid)
}

// Alive reports whether pid runs (a zombie, dead but not reaped, does not).
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
