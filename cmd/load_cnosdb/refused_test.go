package main

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestRefusedInputDropsNothing: a pgcopy file with --drop-db leaves the
// database as it was (CnosDB takes line protocol only).
func TestRefusedInputDropsNothing(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	loadtest.RefusedInput{
		Spec:    spec(),
		Args:    []string{"--urls", base, "--db-name", db},
		Table:   "refused",
		WantErr: "takes line protocol, not pgcopy",
		PGCopy:  true, // CSV is written as lines
		Count:   func(t testing.TB) int64 { return cnosdbtest.Count(t, base, db, "refused") },
	}.Run(t)
}
