package split

import "unsafe"

// addr is the address of b's first byte.
func addr(b []byte) int { return int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

// prefault reads one byte of every 4 KiB page of b, so that a mapped
// window's page faults are taken by the goroutine that calls it; the
// result is kept (raChunk.touched) so that the reads are not optimised away.
func prefault(b []byte) byte {
	var x byte
	for i := 0; i < len(b); i += 4096 {
		x += b[i]
	}
	return x
}

// touch is prefault in a goroutine that watches faults (WatchFaults): a
// page past the end of a file truncated since it was mapped gives its
// *ChangedError.
func touch(b []byte) (x byte, err error) {
	defer func() { err = faultError(recover(), err) }()
	return prefault(b), nil
}
