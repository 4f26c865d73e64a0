//go:build amd64 && !purego

package split

import "golang.org/x/sys/cpu"

// useAVX2 selects plainAVX2 for scanILPFast's work.
var useAVX2 = cpu.X86.HasAVX2

// plainBlocksAVX2 is scanILPFast's word loop over b 32 bytes at a time
// (len(b) is a multiple of 32), in AVX2: it takes and returns the loop's
// parity (0 or all ones) and prev (0 or 0x80); viol is non-zero when a
// byte is a control character, non-ASCII, a backslash or a quote, or the
// separators and '=' do not alternate, as in the loop. It also counts the
// spaces and returns the index of the last one in b (-1: none).
// Implemented in ilp_amd64.s.
//
//go:noescape
func plainBlocksAVX2(b []byte, parity, prev uint64) (viol, parityOut, prevOut uint64, spaces, lastSp int)

// plainAVX2 is plainSWAR with AVX2: the line's whole 32-byte blocks, then
// its tail padded with neutral bytes to a block.
func plainAVX2(line []byte) (plain bool, parity uint64, spaces, lastSp int) {
	n := len(line) &^ 31
	var viol, prev uint64
	lastSp = -1
	if n > 0 {
		viol, parity, prev, spaces, lastSp = plainBlocksAVX2(line[:n], 0, 0)
	}
	if rest := line[n:]; len(rest) > 0 {
		pad := [32]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a',
			'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
		copy(pad[:], rest)
		v, p, _, sp, last := plainBlocksAVX2(pad[:], parity, prev)
		viol, parity = viol|v, p
		if sp > 0 {
			spaces += sp
			lastSp = n + last
		}
	}
	return viol == 0, parity, spaces, lastSp
}
