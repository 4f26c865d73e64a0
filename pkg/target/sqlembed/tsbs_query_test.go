//go:build cgo

package sqlembed_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
	loadpkg "github.com/tsload/tsload/pkg/load"
)

// TestTSBSQueries runs a query set of TSBS's catalogue against each
// engine with every answer checked (internal/querytest.RunTSBS).
func TestTSBSQueries(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			querytest.Suite{Loader: "load_" + e.name, New: func(t *testing.T, _ string, _ time.Duration) (loadpkg.Target, loadpkg.PrepareOptions) {
				tg, err := newTargets[e.name](filepath.Join(t.TempDir(), "tsbs"+e.ext))
				if err != nil {
					t.Fatal(err)
				}
				return tg, loadpkg.PrepareOptions{CreateDB: true}
			}}.RunTSBS(t, "b")
		})
	}
}
