package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
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
	dir := t.TempDir()
	for _, c := range gentest.ParquetCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			results := filepath.Join(dir, c.Name+".json")
			r := loadtest.RunCLI(t, spec(), []string{"load_influx", "--urls", url, "--file", c.Path, "--db-name", db,
				"--workers", "2", "--batch-size", "300", "--results-file", results}, results, "")
			res := loadtest.ReadResults(t, results)
			if res.Format != "parquet" || res.Rows != c.Rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[c.Table] != c.Rows {
				t.Fatalf("format %s rows %d/%d verify %+v\n%s", res.Format, res.Rows, c.Rows, res.Verify, r.Stderr)
			}
		})
	}
}
