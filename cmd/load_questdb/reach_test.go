package main

import (
	"fmt"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// A wrong HTTP port fails at once with a hint; the PG-wire URL is fine
// (the default), so only the pre-check stops the run.
func TestRefusedAtStart(t *testing.T) {
	loadtest.RefusedAtStart(t, spec(), func(port int) []string {
		return []string{"--http-url", fmt.Sprintf("http://127.0.0.1:%d", port)}
	})
}
