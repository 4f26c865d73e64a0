package main

import (
	"strconv"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// A wrong port fails at once with one error and a hint (before: pgx's
// error once per address it tried, no hint).
func TestRefusedAtStart(t *testing.T) {
	loadtest.RefusedAtStart(t, spec(), func(port int) []string {
		return []string{"--port", strconv.Itoa(port)}
	})
}
