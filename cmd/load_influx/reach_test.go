package main

import (
	"fmt"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

func TestRefusedAtStart(t *testing.T) {
	loadtest.RefusedAtStart(t, spec(), func(port int) []string {
		return []string{"--urls", fmt.Sprintf("http://127.0.0.1:%d", port)}
	})
}
