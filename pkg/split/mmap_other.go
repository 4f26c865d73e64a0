//go:build !unix

package split

import (
	"errors"
	"os"
)

// mapping is not available here: files are read.
type mapping struct{ data []byte }

func mapFile(*os.File, int64) (*mapping, error) { return nil, errors.New("no memory mapping") }
func (m *mapping) drop([]byte)                  {}
func (m *mapping) hold()                        {}
func (m *mapping) Release()                     {}
