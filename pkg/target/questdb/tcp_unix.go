//go:build unix

package questdb

import (
	"errors"
	"io"
	"syscall"
)

// closedByServer reports whether the server has closed the connection (or
// sent anything, which ILP/TCP never does), without blocking: a
// non-blocking MSG_PEEK on the socket.
func (w *tcpWriter) closedByServer() error {
	sc, ok := w.raw.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), w.probe[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	}); err != nil {
		return err
	}
	switch {
	case errors.Is(rerr, syscall.EAGAIN):
		return nil // open, nothing to read: the normal state
	case rerr != nil:
		return rerr
	case n == 0:
		return io.EOF
	}
	return errors.New("unexpected data from the server")
}
