//go:build !amd64 || purego

package ilp

// useAVX2 is false: plainSWAR does all the work.
const useAVX2 = false

// plainAVX2 is not called where there is no vector implementation.
func plainAVX2(line []byte) (plain bool, parity uint64, spaces, lastSp, firstSp, nameEnd, fields int) {
	panic("ilp: no AVX2 kernel in this build")
}

// nextPlain leaves every line to the caller where there is no vector
// implementation.
func nextPlain([]byte) (r Line, n int, ok bool) { return r, -1, false }
