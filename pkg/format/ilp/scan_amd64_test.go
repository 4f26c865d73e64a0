//go:build amd64 && !purego

package ilp

import (
	"bytes"
	"testing"
)

// withAVX2 runs f with plainBlocksAVX2 on (when the CPU has it) and off, so
// that the tests compare both with the careful scanner.
func withAVX2(f func(avx2 bool)) {
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, on := range []bool{false, true} {
		if on && !saved {
			continue
		}
		useAVX2 = on
		f(on)
	}
}

// BenchmarkScanILPLineSWAR is BenchmarkScanILPLine without AVX2.
func BenchmarkScanILPLineSWAR(b *testing.B) {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	BenchmarkScanILPLine(b)
}

// lineFastAgrees checks NextLine on line, followed by '\n' and bytes
// that must not count (separators, quotes, backslashes, NUL, more lines):
// it must find the '\n' and agree with ScanPlain. Cut before the '\n'
// to whole blocks, it must report no line end.
func lineFastAgrees(t *testing.T, line []byte) {
	t.Helper()
	if !useAVX2 || bytes.IndexByte(line, '\n') >= 0 {
		return
	}
	want, wantOK := ScanPlain(line)
	for _, junk := range []string{"a", " ,=\\\"\x00\xff\r", "m f=1 2\n"} {
		buf := append(append([]byte(nil), line...), '\n')
		for len(buf)%64 != 0 {
			buf = append(buf, junk[len(buf)%len(junk)])
		}
		r, n, ok := NextLine(buf)
		if n != len(line) || ok != wantOK || (ok && r != want) {
			t.Errorf("%q + %q: NextLine %+v, end %d, ok %v; ScanPlain %+v, ok %v", line, junk, r, n, ok, want, wantOK)
		}
		if whole := len(line) &^ 63; whole > 0 {
			if _, n, ok := NextLine(buf[:whole]); n != -1 || ok {
				t.Errorf("%q cut to %d bytes: end %d, ok %v; want -1", line, whole, n, ok)
			}
		}
	}
}
