package split

import "sync/atomic"

// loan is the one ownership type of the input's memory: bytes lent out
// (the file's mapping, a read-ahead chunk, a buffer of the ring or a window
// of the mapping, a parallel scan's segment) and what gives them back.
// Whoever hands the bytes out holds them from the start; every batch
// (load.Batch.Hold) or window that points into them holds them too:
//
//	lend (1 holder) -> hold per new holder -> Release per holder
//
// The Release that drops the last holder, and only that one, gives the
// bytes back (back: to the ring, to the kernel: unmap, drop pages); no
// holder may touch them after its own Release. A hold or a Release after
// the last one is a bug that would let a batch read bytes that are gone or
// reused, so it panics rather than go unseen. A batch whose bytes lie in
// one loan holds it as its load.Batch.Hold; one over several (the scan
// segments it spans) holds them as loans.
type loan struct {
	n    atomic.Int64 // holders
	back func()       // gives the bytes back, after the last Release
}

// lend makes the caller the one holder of bytes handed out anew.
func (l *loan) lend() { l.n.Store(1) }

// hold adds a holder; the bytes must still be held.
func (l *loan) hold() {
	if l.n.Add(1) <= 1 {
		panic("split: hold of input bytes already given back")
	}
}

// Release drops a holder; the last one gives the bytes back.
func (l *loan) Release() {
	n := l.n.Add(-1)
	if n < 0 {
		panic("split: release of input bytes already given back")
	}
	if n == 0 {
		l.back()
	}
}

// loans is a batch's hold on several loans (load.Batch.Hold).
type loans []*loan

// Release drops the batch's hold on each.
func (h *loans) Release() {
	for _, l := range *h {
		l.Release()
	}
	*h = (*h)[:0]
}

// span is bytes borrowed from a read-ahead chunk, c.buf[start:end], with
// one hold on c's loan: taken when the span starts (Splitter.take), given
// back by release, or passed on to a batch as its load.Batch.Hold (emit).
type span struct {
	c          *raChunk
	start, end int
}

// bytes are the span's bytes (capacity capped: an append copies).
func (z *span) bytes() []byte { return z.c.buf[z.start:z.end:z.end] }

// release gives the hold back, if there is one.
func (z *span) release() {
	if z.c != nil {
		z.c.Release()
		*z = span{}
	}
}
