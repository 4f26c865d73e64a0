package main

import (
	"testing"

	"github.com/tsload/tsload/internal/parquettest"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into line protocol on the workers) into InfluxDB and verifies
// the counts.
func TestParquet(t *testing.T) {
	url := influxURL(t)
	db := influxDB(t, url)
	parquettest.Suite{Spec: spec(), Args: []string{"--urls", url, "--db-name", db}}.Run(t)
	parquettest.NullRows(t, spec(), "nullrows", true, false, "--urls", url, "--db-name", db)
}
