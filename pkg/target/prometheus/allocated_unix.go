//go:build unix

package prometheus

import (
	"io/fs"
	"syscall"
)

// allocated is the bytes info's file takes on disk (its blocks, as du
// counts: Prometheus preallocates its WAL segments sparsely).
func allocated(info fs.FileInfo) (int64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Blocks * 512, true
}
