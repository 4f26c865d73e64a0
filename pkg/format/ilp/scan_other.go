//go:build !amd64 || purego

package ilp

// useAVX2 is false: plainSWAR does all the work.
const useAVX2 = false

// plainAVX2 is not called where there is no vector implementation.
func plainAVX2(line []byte) (plain bool, parity uint64, spaces, lastSp, firstSp, nameEnd, fields int) {
	panic("ilp: no AVX2 kernel in this build")
}

// NextLine (scan.go) without a vector implementation.
func NextLine(b []byte) (r Line, n int, plain bool) { return nextLineSWAR(b) }
