//go:build !cgo

package duckdb

import (
	"errors"

	"github.com/tsload/tsload/pkg/target/sqlembed"
)

// newEngine: DuckDB's driver is cgo; a build without cgo (CGO_ENABLED=0, a
// cross-compilation) has no DuckDB.
func newEngine() (sqlembed.Engine, error) {
	return nil, errors.New("duckdb: this load_duckdb was built without cgo (CGO_ENABLED=0): build it with a C compiler")
}
