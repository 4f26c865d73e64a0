//go:build cgo

package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/sqlembed"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// newEngine is DuckDB through duckdb-go (cgo).
func newEngine() (sqlembed.Engine, error) { return engine{}, nil }

type engine struct{}

func (engine) Name() string { return "duckdb" }

// Stages: an Appender fills data chunks of its own; its Flush hands them to
// the connection's transaction (sqlembed.Stager).
func (engine) Stages() bool { return true }

func (engine) Open(path string, workers int) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	// DuckDB checkpoints (moves the WAL into the file) on the commit that
	// takes the WAL past checkpoint_threshold, 16 MiB by default: with a
	// commit per batch that is a checkpoint every few tens of thousands of
	// rows, each rewriting the table's last row group, and a fsync of the
	// file. Raised, the load checkpoints once (FlushStorage) at its end, as
	// DuckDB's own one-transaction import does; each commit is as durable
	// (the WAL is synced on commit), and the WAL grows to the load's size.
	if _, err := db.Exec("SET checkpoint_threshold = '" + checkpointThreshold + "'"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkpointThreshold is the WAL size at which DuckDB checkpoints during a load.
const checkpointThreshold = "1GiB"

func (engine) Columns() string {
	return "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position"
}

func (engine) Begin() string { return "BEGIN TRANSACTION" }

func (engine) ColumnType(t schema.Type) string {
	switch t {
	case schema.Timestamp:
		return "TIMESTAMPTZ"
	case schema.Float8:
		return "DOUBLE"
	case schema.Float4:
		return "FLOAT"
	case schema.Int8:
		return "BIGINT"
	case schema.Int4:
		return "INTEGER"
	}
	return "VARCHAR"
}

// Time: TIMESTAMPTZ keeps microseconds, as PostgreSQL does.
func (engine) Time(ns int64) driver.Value { return time.Unix(0, ns).UTC() }

func (engine) NewRows(ctx context.Context, conn *sql.Conn, tb *schema.Table, perRow bool) (sqlembed.RowWriter, error) {
	if perRow {
		return sqlembed.NewInsertRows(ctx, conn, tb, true)
	}
	// The Appender: a table function fed from Go slices and Arrow views
	// were tried and left (docs/loaders/duckdb.md, What a row costs).
	var a *duckdb.Appender
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a duckdb connection")
		}
		var err error
		a, err = duckdb.NewAppenderFromConn(c, "", tb.Name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &appender{a: a}, nil
}

// appender is a RowWriter on DuckDB's Appender: rows go into the
// connection's open transaction when its Flush (or Close) runs.
type appender struct{ a *duckdb.Appender }

func (w *appender) Append(ctx context.Context, rows [][]driver.Value) error {
	for _, row := range rows {
		if err := w.a.AppendRow(row...); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (w *appender) Flush(context.Context) error { return w.a.Flush() }
func (w *appender) Close() error                { return w.a.Close() }

func (engine) Aggregates() sqlembed.Aggregates {
	return sqlembed.Aggregates{
		TimeNS:   func(c string) string { return "epoch_ns(" + c + ")" },
		TimeUnit: 1000,
		IntSum:   func(c string) string { return "CAST(sum(CAST(" + c + " AS HUGEINT)) AS VARCHAR)" },
		OctetLen: func(c string) string { return "strlen(" + c + ")" },
	}
}

// Querying: TIMESTAMPTZ and TIMESTAMP come back as time.Time.
func (engine) Querying() sqlembed.Querying { return sqlembed.Querying{Dialect: sqlquery.DuckDB()} }

func (engine) Checkpoint() string     { return "CHECKPOINT" }
func (engine) WAL(path string) string { return path + ".wal" }

func (engine) Version(ctx context.Context, db *sql.DB) string {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT 'DuckDB ' || version()").Scan(&v); err != nil {
		return ""
	}
	return v
}
