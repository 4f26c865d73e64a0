//go:build amd64 && !purego

package ilp

import "golang.org/x/sys/cpu"

// useAVX2 selects plainAVX2 for ScanPlain's work.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// plainResult is what plainBlocksAVX2 finds in its blocks.
type plainResult struct {
	viol     uint64 // non-zero: a byte is not plain, or the alternation breaks
	parity   uint64 // 0 or all ones: the loop's parity after the blocks
	prev     uint64 // 0x80 when the last byte is ',', ' ' or '='
	spaces   int    // spaces seen
	lastSp   int    // index of the last space, -1: none
	firstSp  int    // index of the first space, -1: none
	firstSep int    // index of the first ',' or ' ', -1: none
	eqs      int    // '=' seen
	// eqsBefore is the number of '=' before the first space (when there
	// is one; 0 otherwise).
	eqsBefore int
}

// blocksAVX2 is ScanPlain's word loop over b 64 bytes at a time (the
// bytes after the last whole block are not read), in AVX2: it takes the
// loop's parity (0 or all ones) and prev (0 or 0x80) and returns them with
// the rest of plainResult; viol is non-zero when a byte is a control
// character, non-ASCII, a backslash or a quote, or the separators and '='
// do not alternate, as in the loop. Positions are indexes in b. skip > 0
// (with a single block) ignores the block's first skip bytes: positions
// then count from the first byte after them. With line, the line that
// starts at b[0] is found and checked in the same pass: n is the index of
// its '\n' and r describes b[:n] (n is -1, r meaningless, when no whole
// block holds a '\n'). Implemented in scan_amd64.s.
//
//go:noescape
func blocksAVX2(b []byte, parity, prev uint64, skip int, line bool) (r plainResult, n int)

// plainBlocksAVX2 checks the whole blocks of b (blocksAVX2 without line).
func plainBlocksAVX2(b []byte, parity, prev uint64, skip int) plainResult {
	r, _ := blocksAVX2(b, parity, prev, skip, false)
	return r
}

// NextLine (scan.go) with AVX2: the line's end and its check are one
// pass of blocksAVX2 over b's whole blocks; a line they do not end is
// found by nextLineSWAR. (One function, not a wrapper: the result is
// copied once per line.)
func NextLine(b []byte) (r Line, n int, plain bool) {
	if !useAVX2 {
		return nextLineSWAR(b)
	}
	p, n := blocksAVX2(b, 0, 0, 0, true)
	if n < 0 {
		return nextLineSWAR(b)
	}
	line := b[:n]
	if n == 0 || !plainFirst[line[0]] || p.viol != 0 {
		return r, n, false
	}
	if c := line[n-1]; c == ',' || c == ' ' || c == '=' {
		return r, n, false
	}
	if !plainSections(line, p.parity, p.spaces, p.lastSp) {
		return r, n, false
	}
	return Line{Row: true, NameEnd: p.firstSep, KeyEnd: p.firstSp, Fields: p.eqs - p.eqsBefore}, n, true
}

// neutralBlock pads a line's tail to a block: 'a' is neither special nor
// rejected.
var neutralBlock = func() (b [64]byte) {
	for i := range b {
		b[i] = 'a'
	}
	return
}()

// plainAVX2 is plainSWAR with AVX2: the line's whole 64-byte blocks, then
// its tail: the line's last 64 bytes skipping those taken, or, for a line
// shorter than a block, the line padded with neutral bytes.
func plainAVX2(line []byte) (plain bool, parity uint64, spaces, lastSp, firstSp, nameEnd, fields int) {
	n := len(line) &^ 63
	r := plainResult{lastSp: -1, firstSp: -1, firstSep: -1}
	if n > 0 {
		r = plainBlocksAVX2(line[:n], 0, 0, 0)
	}
	if rest := line[n:]; len(rest) > 0 {
		var t plainResult
		if n > 0 { // the last 64 bytes, without those already taken
			t = plainBlocksAVX2(line[len(line)-64:], r.parity, r.prev, 64-len(rest))
		} else {
			pad := neutralBlock
			copy(pad[:], rest)
			t = plainBlocksAVX2(pad[:], r.parity, r.prev, 0)
		}
		r.viol |= t.viol
		r.parity = t.parity
		if r.firstSep < 0 && t.firstSep >= 0 {
			r.firstSep = n + t.firstSep
		}
		if t.spaces > 0 {
			if r.spaces == 0 {
				r.firstSp = n + t.firstSp
				r.eqsBefore = r.eqs + t.eqsBefore
			}
			r.spaces += t.spaces
			r.lastSp = n + t.lastSp
		}
		r.eqs += t.eqs
	}
	return r.viol == 0, r.parity, r.spaces, r.lastSp, r.firstSp, r.firstSep, r.eqs - r.eqsBefore
}
