//go:build !unix

package loadtest

import "errors"

// KillPID is for unix systems only: the kill scenario needs SIGKILL.
func KillPID(pid int) error {
	return errors.New("loadtest: killing a server with SIGKILL needs a unix system")
}

// Alive is for unix systems only.
func Alive(pid int) bool { return false }
