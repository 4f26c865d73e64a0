package split

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// An input file that changes while it is read (docs/formats.md "An input
// that changes while it is read"):
//   - truncated: a mapped file's pages past the new end fault (SIGBUS) when
//     touched. Every goroutine of this package that touches a mapping
//     (the read-ahead's prefault, the parallel scan, Splitter.Next) and the
//     callers' workers (CatchFault) turn that fault into a *ChangedError
//     instead of a crash; a streamed regular file that ends before the size
//     it had when opened gives the same error.
//   - replaced by rename: the open file (and its mapping) is the old one,
//     read to its end as if nothing happened.
//   - grown: bytes appended before the reader reaches the end are read
//     (past a mapping's end with read(2)) and loaded.

// ChangedError is the error of an input file that changed while it was
// read: it ended at byte Size, before the size it had when opened.
type ChangedError struct {
	Source string
	Size   int64 // its size when the change was seen (-1: unknown)
	Opened int64 // its size when opened
}

func (e *ChangedError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s changed while it was read (truncated: it was %d bytes when opened)", e.Source, e.Opened)
	}
	return fmt.Sprintf("%s changed while it was read (truncated at byte %d)", e.Source, e.Size)
}

// liveMaps are the mappings not yet unmapped, to name the file of a fault.
var liveMaps struct {
	sync.Mutex
	m map[*mapping]mapInfo
}

// mapInfo is what a fault in a mapping needs to say what changed.
type mapInfo struct {
	source string
	f      *os.File
	size   int64
}

func registerMap(m *mapping, source string, f *os.File, size int64) {
	liveMaps.Lock()
	defer liveMaps.Unlock()
	if liveMaps.m == nil {
		liveMaps.m = map[*mapping]mapInfo{}
	}
	liveMaps.m[m] = mapInfo{source: source, f: f, size: size}
}

func unregisterMap(m *mapping) {
	liveMaps.Lock()
	delete(liveMaps.m, m)
	liveMaps.Unlock()
}

// changedAt returns the error of a fault at address a when a lies in a
// live mapping (nil otherwise).
func changedAt(a uintptr) *ChangedError {
	liveMaps.Lock()
	defer liveMaps.Unlock()
	for m, mf := range liveMaps.m {
		lo := uintptr(addr(m.data))
		if a >= lo && a < lo+uintptr(len(m.data)) {
			return mf.changed()
		}
	}
	return nil
}

// shrunkSource is the *ChangedError of the mapped input named source when
// the file is now shorter than when it was mapped (nil: no live mapping
// of that name, or its file did not shrink). A checker asks before it
// reports a malformed line: the zeros past a mapped file's new end are
// the change, not the line (a batch's last line may be a copy, so the
// name, not the address, finds the mapping).
func shrunkSource(source string) *ChangedError {
	liveMaps.Lock()
	var found []*mapping
	for m, mf := range liveMaps.m {
		if mf.source == source {
			found = append(found, m)
		}
	}
	liveMaps.Unlock()
	for _, m := range found {
		if e := m.shrunk(); e != nil {
			return e
		}
	}
	return nil
}

// changed is the error of mf's file now.
func (mf mapInfo) changed() *ChangedError {
	e := &ChangedError{Source: mf.source, Size: -1, Opened: mf.size}
	if st, err := mf.f.Stat(); err == nil { // the inode read, even when renamed over
		e.Size = st.Size()
	} else if st, err := os.Stat(mf.source); err == nil {
		e.Size = st.Size()
	}
	return e
}

// shrunk returns the *ChangedError of m's file when the file is now
// shorter than when it was mapped (nil otherwise, and where nothing is
// mapped). Truncation faults only on the pages wholly past the new end:
// the rest of the page the file now ends in reads as zeros, which a
// reader meets before any fault (a pgcopy record header of zeros: "0
// fields"), and when the file ends in its last page nothing faults at
// all. So an error of a mapped input, and its end, ask this first.
func (m *mapping) shrunk() *ChangedError {
	if m == nil {
		return nil
	}
	liveMaps.Lock()
	mf, ok := liveMaps.m[m]
	liveMaps.Unlock()
	if !ok {
		return nil
	}
	if e := mf.changed(); e.Size >= 0 && e.Size < mf.size {
		return e
	}
	return nil
}

// faultError returns the error of a recovered panic p when it is a memory
// fault in a live mapping (err unchanged when p is nil), and panics again
// with p otherwise.
func faultError(p any, err error) error {
	if p == nil {
		return err
	}
	if re, ok := p.(runtime.Error); ok {
		if fa, ok := re.(interface{ Addr() uintptr }); ok {
			if ce := changedAt(fa.Addr()); ce != nil {
				return ce
			}
		}
	}
	panic(p)
}

// CatchFault, deferred by a goroutine that touches batches of a mapped
// input (a loader's worker), sets *errp to the *ChangedError of a fault in
// a mapping the input changed under (see WatchFaults); other panics go on.
func CatchFault(errp *error) {
	*errp = faultError(recover(), *errp)
}

// WatchFaults makes a memory fault in the calling goroutine a panic that
// CatchFault can recover rather than a crash of the process (for the
// goroutine's life: debug.SetPanicOnFault).
func WatchFaults() { debug.SetPanicOnFault(true) }

// sizeChecked is a regular file's reader that reports a *ChangedError at
// its end when it read fewer bytes than the file had when opened.
type sizeChecked struct {
	r      io.Reader
	source string
	size   int64
	n      int64
}

func (s *sizeChecked) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	if err == io.EOF && s.n < s.size {
		return n, &ChangedError{Source: s.source, Size: s.n, Opened: s.size}
	}
	return n, err
}
