package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
)

// Reading stdin. A read of a terminal or a pipe waits until something is
// typed or written, and no context can interrupt a blocking read(2): a
// loader at a terminal would ignore Ctrl-C (issue 43.7). So stdin is read
// by a goroutine of its own and the reader waits for it or for the run's
// stop, whichever comes first; on a stop the read is abandoned (the
// goroutine ends with the process, or when the read returns). A regular
// file (`< file`) never waits and is read directly.

// errStdinStopped is a read of stdin abandoned because the run stopped.
var errStdinStopped = errors.New("stopped while waiting for stdin")

// stopReader reads src in its own goroutine, one Read at a time, and
// gives up on a read when stop is closed. It copies each read once (from
// its own buffer into the caller's, which must not be written after Read
// returned).
type stopReader struct {
	src  io.Reader
	stop <-chan struct{}

	buf []byte
	err error // sticky: an error or the stop
}

type readResult struct {
	n   int
	err error
}

// maxStdinRead bounds one read of stdin (and the buffer it goes into).
const maxStdinRead = 256 << 10

// newStdin returns src as the run reads it: through a stopReader when it
// may wait (anything but a regular file).
func newStdin(src io.Reader, stop <-chan struct{}) io.Reader {
	if f, ok := src.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return src
		}
	}
	return &stopReader{src: src, stop: stop}
}

func (s *stopReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// The buffer belongs to the read until it returns; after a read given
	// up on there is no other (the stop is sticky).
	n := min(len(p), maxStdinRead)
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	buf := s.buf[:n]
	done := make(chan readResult, 1)
	go func() {
		n, err := s.src.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		n := copy(p, buf[:res.n])
		if res.err != nil {
			s.err = res.err
			if n > 0 {
				return n, nil // the error comes with the next read
			}
		}
		return n, res.err
	case <-s.stop:
		s.err = errStdinStopped
		return 0, s.err
	}
}

// stopper closes a channel once, when the run stops reading: its context
// is done or (pipeline) a worker failed.
type stopper struct {
	once sync.Once
	c    chan struct{}
}

func newStopper() *stopper { return &stopper{c: make(chan struct{})} }

func (s *stopper) stop() { s.once.Do(func() { close(s.c) }) }

// watch stops s when ctx is done, until the returned func is called.
func (s *stopper) watch(ctx context.Context) (unwatch func() bool) {
	return context.AfterFunc(ctx, s.stop)
}
