//go:build cgo

// Command duckdb_import is the ceiling of `scripts/bench_load.sh duckdb`:
// DuckDB's own import of a CSV or Parquet file (CREATE TABLE ... AS SELECT
// * FROM read_csv or read_parquet, one transaction, then CHECKPOINT) into
// a new database file, through the same DuckDB library load_duckdb links.
// It prints the table's row count (read back) and the seconds from opening
// the file to the end of the checkpoint:
//
//	duckdb_import --db x.duckdb --table cpu --threads 2 cpu.csv
//	200000 1.734
package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/tsload/tsload/pkg/schema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb_import:", err)
		os.Exit(1)
	}
}

func run() error {
	path := flag.String("db", "", "the database `FILE` (must not exist)")
	table := flag.String("table", "cpu", "the table to create")
	threads := flag.Int("threads", 2, "DuckDB's threads")
	flag.Parse()
	if *path == "" || flag.NArg() != 1 {
		return errors.New("usage: duckdb_import --db FILE [--table T] [--threads N] INPUT.csv|INPUT.parquet")
	}
	in := flag.Arg(0)
	reader := "read_csv"
	if strings.HasSuffix(in, ".parquet") {
		reader = "read_parquet"
	}
	if _, err := os.Stat(*path); err == nil {
		return fmt.Errorf("%s exists", *path)
	}
	start := time.Now()
	db, err := sql.Open("duckdb", fmt.Sprintf("%s?threads=%d", *path, *threads))
	if err != nil {
		return err
	}
	defer db.Close()
	q := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM %s('%s')", schema.QuoteIdent(*table), reader, strings.ReplaceAll(in, "'", "''"))
	if _, err := db.Exec(q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	if _, err := db.Exec("CHECKPOINT"); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM " + schema.QuoteIdent(*table)).Scan(&n); err != nil {
		return err
	}
	fmt.Printf("%d %.3f\n", n, secs)
	return nil
}
