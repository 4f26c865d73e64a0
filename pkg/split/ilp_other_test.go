//go:build !amd64 || purego

package split

// withAVX2 runs f once: there is no vector implementation here.
func withAVX2(f func(avx2 bool)) { f(false) }
