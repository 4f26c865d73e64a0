//go:build cgo

package duckdb

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/sqlembed"
)

// cpuRows are n rows of TSBS's cpu table as sqlembed's decoder makes them:
// the time, ten tags (200 hosts, each tag value boxed once and shared) and
// ten doubles.
func cpuRows(n int) (*schema.Table, [][]driver.Value) {
	tb := &schema.Table{Name: "cpu", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}}}
	for _, c := range []string{"hostname", "region", "datacenter", "rack", "os", "arch", "team", "service", "service_version", "service_environment"} {
		tb.Columns = append(tb.Columns, schema.Column{Name: c, Type: schema.Text})
	}
	for _, c := range []string{"usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait", "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"} {
		tb.Columns = append(tb.Columns, schema.Column{Name: c, Type: schema.Float8})
	}
	const hosts = 200
	tags := make([][]driver.Value, hosts)
	for h := range tags {
		tags[h] = []driver.Value{fmt.Sprintf("host_%d", h), "us-west-1", "us-west-1a", fmt.Sprint(h % 100), "Ubuntu16.10", "x64", "SF", fmt.Sprint(h % 20), "1", "test"}
	}
	t0 := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([][]driver.Value, n)
	for i := range rows {
		r := make([]driver.Value, 0, len(tb.Columns))
		r = append(r, engine{}.Time(t0.Add(time.Duration(i/hosts)*10*time.Second).UnixNano()))
		r = append(r, tags[i%hosts]...)
		for f := range 10 {
			r = append(r, float64((i*7+f*13)%100)+0.5)
		}
		rows[i] = r
	}
	return tb, rows
}

// BenchmarkWrite writes cpu rows with the engine's batched RowWriter (the
// Appender) on one connection, in batches of 5,000 rows: per-batch, a
// transaction each (Append, Flush, COMMIT); one-transaction, one
// transaction and a Flush per 131,072 rows (sqlembed's stageRows). An op is
// one row; decoding is not in it. A CPU profile of it (-cpuprofile) shows
// what a row costs in the driver and in DuckDB.
func BenchmarkWrite(b *testing.B) {
	const batch, stage = 5000, 1 << 17
	tb, rows := cpuRows(batch)
	for _, mode := range []string{"per-batch", "one-transaction"} {
		b.Run(mode, func(b *testing.B) {
			db, err := engine{}.Open(filepath.Join(b.TempDir(), "b.duckdb"), 1)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			cols := ""
			for i, c := range tb.Columns {
				if i > 0 {
					cols += ", "
				}
				cols += schema.QuoteIdent(c.Name) + " " + engine{}.ColumnType(c.Type)
			}
			if _, err := db.Exec("CREATE TABLE cpu (" + cols + ")"); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			exec := func(q string) {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			if mode == "one-transaction" {
				exec("BEGIN TRANSACTION")
			}
			var rw sqlembed.RowWriter // per-batch: a writer per batch, as sqlembed's session
			staged := 0
			for done := 0; done < b.N; done += batch {
				if mode == "per-batch" {
					exec("BEGIN TRANSACTION")
				}
				if rw == nil {
					if rw, err = (engine{}).NewRows(ctx, conn, tb, false); err != nil {
						b.Fatal(err)
					}
				}
				n := min(batch, b.N-done)
				if err := rw.Append(ctx, rows[:n]); err != nil {
					b.Fatal(err)
				}
				if staged += n; mode == "per-batch" || staged >= stage || done+n >= b.N {
					if err := rw.Flush(ctx); err != nil {
						b.Fatal(err)
					}
					staged = 0
				}
				if mode == "per-batch" || done+n >= b.N {
					if err := rw.Close(); err != nil {
						b.Fatal(err)
					}
					rw = nil
				}
				if mode == "per-batch" {
					exec("COMMIT")
				}
			}
			if mode == "one-transaction" {
				exec("COMMIT")
			}
			b.StopTimer()
			var n int
			if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM cpu").Scan(&n); err != nil || n != b.N {
				b.Fatalf("%d rows in the table, %d written (%v)", n, b.N, err)
			}
		})
	}
}
