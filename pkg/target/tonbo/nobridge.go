//go:build !tonbo || !cgo

package tonbo

// Linked says the bridge is linked in: not in this build (no -tags tonbo,
// or no cgo).
const Linked = false

type handle struct{}

func bridgeVersion() string { return "" }

func bridgeOpen(dir, spec string, wal bool) (*handle, error) { return nil, ErrNoBridge }

func (*handle) write(mode int, buf []byte, rows int) error { return ErrNoBridge }

func (*handle) scan(ncols int) (*scanned, error) { return nil, ErrNoBridge }

func (*handle) close() error { return nil }
