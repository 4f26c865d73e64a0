package main

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestRefusedInputDropsNothing: a csv file with --drop-db leaves the
// database as it was (CnosDB takes line protocol only).
func TestRefusedInputDropsNothing(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	loadtest.RefusedInput{
		Spec:    spec(),
		Args:    []string{"--urls", s.URL, "--db-name", "bench"},
		Table:   "refused",
		WantErr: "takes line protocol, not csv",
		Count:   func(testing.TB) int64 { return int64(s.Rows("bench", "refused")) },
	}.Run(t)
}
