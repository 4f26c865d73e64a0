//go:build amd64 && !purego

package split

import "testing"

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
