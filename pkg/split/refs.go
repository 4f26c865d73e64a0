package split

import "sync/atomic"

// refs counts the holders of borrowed bytes: the one ownership rule of the
// input's memory, shared by the file's mapping, the read-ahead chunks (a
// buffer of the ring or a window of the mapping) and the parallel scan's
// segments. Whoever hands the bytes out holds them from the start; every
// batch (load.Batch.Hold) or window that points into them holds them too:
//
//	start (1 holder) -> hold per new holder -> release per holder
//
// The release that drops the last holder reports true, and only then does
// the owner give the bytes back (to the ring, to the kernel: unmap, drop
// pages); no holder may touch them after its own release. A hold or a
// release after the last release is a bug that would let a batch read
// bytes that are gone or reused, so it panics rather than go unseen.
type refs struct{ n atomic.Int64 }

// start makes the caller the one holder (for bytes handed out anew).
func (r *refs) start() { r.n.Store(1) }

// hold adds a holder; the bytes must still be held.
func (r *refs) hold() {
	if r.n.Add(1) <= 1 {
		panic("split: hold of input bytes already given back")
	}
}

// release drops a holder and reports whether it was the last.
func (r *refs) release() bool {
	n := r.n.Add(-1)
	if n < 0 {
		panic("split: release of input bytes already given back")
	}
	return n == 0
}

// span is bytes borrowed from a read-ahead chunk, c.buf[start:end], with
// one hold on c (refs): taken when the span starts (Splitter.take), given
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
