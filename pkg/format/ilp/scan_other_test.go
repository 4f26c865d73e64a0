//go:build !amd64 || purego

package ilp

import "testing"

// withAVX2 runs f once: there is no vector implementation here.
func withAVX2(f func(avx2 bool)) { f(false) }

// lineFastAgrees has nothing to check: NextLine is nextLineSWAR, left to
// the caller here.
func lineFastAgrees(*testing.T, []byte) {}
