package main

import (
	"path/filepath"
	"testing"

	"github.com/tsload/tsload/internal/parquettest"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into COPY tuples on the workers) and verifies the counts; a
// BOOLEAN column fails before the database is touched.
func TestParquet(t *testing.T) {
	base, db := freshDB(t, "tsload_parquet")
	parquettest.Suite{Spec: spec(), Args: []string{"--postgres", base, "--db-name", db}}.Run(t)
	// Rows whose only field is NULL are rows of NULLs here.
	parquettest.NullRows(t, spec(), "nullrows", false, true, "--postgres", base, "--db-name", db)
	loadInto(t, base, db+"_never", `column "ok" is BOOLEAN, which tsload does not load`,
		"--file", filepath.Join("..", "..", "pkg", "format", "parquet", "testdata", "unsupported.parquet"))
}
