//go:build !unix

package questdb

// closedByServer cannot peek at the socket here: a connection the server
// closed is found by the next write's error instead.
func (w *tcpWriter) closedByServer() error { return nil }
