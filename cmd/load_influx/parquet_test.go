package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/parquettest"
	"github.com/tsload/tsload/pkg/target/influx"
)

// TestParquet loads a Parquet file of generate_data and one of pyarrow
// (turned into line protocol on the workers) into InfluxDB and verifies
// the counts.
func TestParquet(t *testing.T) {
	url := influxURL(t)
	db := fmt.Sprintf("tsload_parquet_%d", time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		tg, _ := influx.New(influx.Config{URLs: []string{url}, Precision: "n"})
		tg.Query(context.Background(), "", "DROP DATABASE \""+db+"\"")
	})
	parquettest.Suite{Spec: spec(), Args: []string{"--urls", url, "--db-name", db}}.Run(t)
	parquettest.NullRows(t, spec(), "nullrows", true, false, "--urls", url, "--db-name", db)
}
