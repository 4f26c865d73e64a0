//go:build tonbo && cgo

package tonbo

/*
#cgo CFLAGS: -I${SRCDIR}/../../../bridge/tonbo
#cgo LDFLAGS: ${SRCDIR}/../../../bridge/tonbo/lib/libtsload_tonbo.a -lpthread -ldl -lm -lrt -lgcc_s
#include <stdlib.h>
#include "tsload_tonbo.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// Linked says the bridge is linked in (built with -tags tonbo).
const Linked = true

// handle is one open tonbo table (the bridge's tt_handle).
type handle struct{ h *C.tt_handle }

// status turns a bridge status and message into an error.
func status(rc C.int, msg *C.char) error {
	if rc == 0 {
		return nil
	}
	if msg == nil {
		return errors.New("the tonbo bridge failed without a message")
	}
	defer C.tt_free(msg)
	return errors.New(C.GoString(msg))
}

func bridgeVersion() string { return C.GoString(C.tt_version()) }

// abi is the bridge's calling convention this package was written for
// (lib.rs's TONBO_VERSION says which it has).
const abi = "abi 3)"

// bridgeOpen opens (creating) the table in dir with the columns of spec.
func bridgeOpen(dir, spec string, wal bool) (*handle, error) {
	if v := bridgeVersion(); !strings.HasSuffix(v, abi) {
		return nil, fmt.Errorf("the linked tonbo bridge is %q, not the %s this load_tonbo calls: run scripts/build_tonbo.sh, then build load_tonbo again", v, strings.TrimSuffix(abi, ")"))
	}
	cdir, cspec := C.CString(dir), C.CString(spec)
	defer C.free(unsafe.Pointer(cdir))
	defer C.free(unsafe.Pointer(cspec))
	w := C.int(0)
	if wal {
		w = 1
	}
	var h *C.tt_handle
	var msg *C.char
	if err := status(C.tt_open(cdir, cspec, w, &h, &msg), msg); err != nil {
		return nil, err
	}
	return &handle{h: h}, nil
}

// write writes rows encoded rows (encode.go) in mode.
func (h *handle) write(mode int, buf []byte, rows int) error {
	var p *C.uint8_t
	if len(buf) > 0 {
		// The bridge reads buf during the call only (cgo pointer rules).
		p = (*C.uint8_t)(unsafe.Pointer(&buf[0]))
	}
	var msg *C.char
	return status(C.tt_write(h.h, C.int(mode), p, C.size_t(len(buf)), C.size_t(rows), &msg), msg)
}

// scan reads the aggregates of every live row; ncols is the number of
// columns after the time.
func (h *handle) scan(ncols int) (*scanned, error) {
	s := &scanned{
		Counts: make([]int64, ncols+1), IntHi: make([]int64, ncols+1), IntLo: make([]uint64, ncols+1),
		Sums: make([]float64, ncols+1), Abs: make([]float64, ncols+1),
		IMin: make([]int64, ncols+1), IMax: make([]int64, ncols+1), FMin: make([]float64, ncols+1), FMax: make([]float64, ncols+1),
	} // +1: never a pointer to an empty slice
	var rows, lo, hi, series C.int64_t
	var msg *C.char
	rc := C.tt_scan(h.h, &rows, &lo, &hi, &series,
		(*C.int64_t)(unsafe.Pointer(&s.Counts[0])), (*C.int64_t)(unsafe.Pointer(&s.IntHi[0])),
		(*C.uint64_t)(unsafe.Pointer(&s.IntLo[0])), (*C.double)(unsafe.Pointer(&s.Sums[0])),
		(*C.double)(unsafe.Pointer(&s.Abs[0])),
		(*C.int64_t)(unsafe.Pointer(&s.IMin[0])), (*C.int64_t)(unsafe.Pointer(&s.IMax[0])),
		(*C.double)(unsafe.Pointer(&s.FMin[0])), (*C.double)(unsafe.Pointer(&s.FMax[0])), &msg)
	if err := status(rc, msg); err != nil {
		return nil, err
	}
	s.Rows, s.MinTime, s.MaxTime, s.Series = int64(rows), int64(lo), int64(hi), int64(series)
	s.Counts, s.IntHi, s.IntLo, s.Sums, s.Abs = s.Counts[:ncols], s.IntHi[:ncols], s.IntLo[:ncols], s.Sums[:ncols], s.Abs[:ncols]
	s.IMin, s.IMax, s.FMin, s.FMax = s.IMin[:ncols], s.IMax[:ncols], s.FMin[:ncols], s.FMax[:ncols]
	return s, nil
}

// close flushes the table to its files and frees the handle.
func (h *handle) close() error {
	var msg *C.char
	err := status(C.tt_close(h.h, &msg), msg)
	h.h = nil
	return err
}
