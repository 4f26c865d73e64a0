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
