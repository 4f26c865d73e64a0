package main

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/parquettest"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into line protocol on the workers) into CnosDB and verifies
// the counts.
func TestParquet(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	parquettest.Suite{Spec: spec(), Args: []string{"--urls", base, "--db-name", db}}.Run(t)
	parquettest.NullRows(t, spec(), "nullrows", true, true, "--urls", base, "--db-name", db)
}
