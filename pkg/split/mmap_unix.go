//go:build unix

package split

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapping is a read-only private memory mapping of a whole regular file.
// Its loan's holders are the Input (until Close) and every window or
// segment in use; the last Release unmaps it, so that a batch still
// pointing into it after the Input's Close stays readable.
type mapping struct {
	loan
	data []byte
}

// mapFile maps the first size bytes of f.
func mapFile(f *os.File, size int64) (*mapping, error) {
	if int64(int(size)) != size {
		return nil, unix.EFBIG
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	m := &mapping{data: data}
	registerMap(m, f.Name(), f, size) // a fault in it names the file (changed.go)
	m.back = func() {
		unregisterMap(m)
		_ = unix.Munmap(m.data)
	}
	m.lend()
	return m, nil
}

// drop tells the kernel that the pages of b (a window of the mapping) are
// not needed any more, so that the process's memory stays bounded by the
// windows in use; the bytes stay readable (refetched from the page cache),
// so a late reader sees the file's bytes, never a fault.
func (m *mapping) drop(b []byte) {
	if len(b) == 0 {
		return
	}
	// Only whole pages inside b: a page shared with the next window keeps
	// its pages until that window's drop.
	lo := (addr(b) + pageSize - 1) &^ (pageSize - 1)
	hi := (addr(b) + len(b)) &^ (pageSize - 1)
	if hi <= lo {
		return
	}
	base := addr(m.data)
	_ = unix.Madvise(m.data[lo-base:hi-base], unix.MADV_DONTNEED)
}
