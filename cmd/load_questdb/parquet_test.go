package main

import (
	"testing"

	"github.com/tsload/tsload/internal/parquettest"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into line protocol on the workers) into tables of the test's
// own and verifies the counts and the content (series, time range, each
// field's count and sum).
func TestParquet(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "pq_")
	parquettest.Suite{Spec: spec(), Prefix: prefix + "_", Content: true, Args: []string{"--pg", pg, "--table-prefix", prefix + "_",
		"--conf", "http::addr=" + httpURL[len("http://"):] + ";"}}.Run(t)
	// Rows whose only field is NULL are skipped and counted; the rest verify.
	parquettest.NullRows(t, spec(), prefix+"_nullrows", true, true, "--pg", pg, "--table-prefix", prefix+"_",
		"--conf", "http::addr="+httpURL[len("http://"):]+";")
}
