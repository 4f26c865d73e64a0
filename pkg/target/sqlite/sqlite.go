// Package sqlite is the SQLite target of cmd/load_sqlite: the database is
// a file opened inside the loader's process (github.com/mattn/go-sqlite3,
// cgo), rows are written with a prepared INSERT in a transaction per batch
// (BEGIN IMMEDIATE), a commit per row, or the load's one transaction. SQLite
// lets one connection write at a time: with several workers each has its
// own connection and waits for the write lock up to BusyTimeout, so the
// workers decode in parallel and commit one after another. What it shares
// with DuckDB is package sqlembed.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the database/sql driver "sqlite3"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/sqlembed"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// Defaults of the SQLite settings.
const (
	DefaultJournalMode = "wal"
	// DefaultSynchronous is SQLite's own default: a commit is on disk when
	// it returns (normal: durable across a crash of the process, not of the
	// machine, in WAL mode).
	DefaultSynchronous = "full"
	DefaultBusyTimeout = time.Minute
)

// Config configures the target.
type Config struct {
	Path        string          // the database file, created when missing
	Commit      sqlembed.Commit // per-row, per-batch (default) or one-transaction
	Workers     int
	JournalMode string        // PRAGMA journal_mode: delete, truncate, persist, memory, wal, off
	Synchronous string        // PRAGMA synchronous: off, normal, full, extra
	BusyTimeout time.Duration // how long a writer waits for the write lock
}

// New returns the target; it opens nothing.
func New(cfg Config) (*sqlembed.Target, error) {
	if cfg.JournalMode == "" {
		cfg.JournalMode = DefaultJournalMode
	}
	if cfg.Synchronous == "" {
		cfg.Synchronous = DefaultSynchronous
	}
	cfg.JournalMode = strings.ToLower(cfg.JournalMode)
	cfg.Synchronous = strings.ToLower(cfg.Synchronous)
	switch cfg.JournalMode {
	case "delete", "truncate", "persist", "memory", "wal", "off":
	default:
		return nil, load.Settingf("sqlite: unknown {JournalMode} %q (want delete, truncate, persist, memory, wal or off)", cfg.JournalMode)
	}
	switch cfg.Synchronous {
	case "off", "normal", "full", "extra":
	default:
		return nil, load.Settingf("sqlite: unknown {Synchronous} %q (want off, normal, full or extra)", cfg.Synchronous)
	}
	if cfg.BusyTimeout < 0 {
		return nil, load.Settingf("sqlite: {BusyTimeout} is negative")
	}
	return sqlembed.New(sqlembed.Config{Path: cfg.Path, Commit: cfg.Commit, Workers: cfg.Workers}, &engine{cfg: cfg})
}

type engine struct{ cfg Config }

func (*engine) Name() string { return "sqlite" }

func (e *engine) Open(path string, workers int) (*sql.DB, error) {
	q := url.Values{}
	q.Set("_journal_mode", e.cfg.JournalMode)
	q.Set("_synchronous", e.cfg.Synchronous)
	q.Set("_busy_timeout", fmt.Sprint(e.cfg.BusyTimeout.Milliseconds()))
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(workers + 2)
	db.SetMaxIdleConns(workers + 2)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Begin takes the write lock at once, so two writers never both hold a
// read lock and wait for each other to write (SQLITE_BUSY without waiting).
func (*engine) Begin() string { return "BEGIN IMMEDIATE" }

func (*engine) Columns() string { return "SELECT name, type FROM pragma_table_info(?)" }

func (*engine) ColumnType(t schema.Type) string {
	switch t {
	case schema.Timestamp:
		return "TIMESTAMP_NS" // integer nanoseconds since the epoch (numeric affinity)
	case schema.Float8:
		return "DOUBLE"
	case schema.Float4:
		return "REAL"
	case schema.Int8:
		return "BIGINT"
	case schema.Int4:
		return "INTEGER"
	}
	return "TEXT"
}

// Time: integer nanoseconds since the epoch (exact; SQLite has no
// timestamp type).
func (*engine) Time(ns int64) driver.Value { return ns }

func (*engine) NewRows(ctx context.Context, conn *sql.Conn, tb *schema.Table, perRow bool) (sqlembed.RowWriter, error) {
	return sqlembed.NewInsertRows(ctx, conn, tb, perRow)
}

func (*engine) Aggregates() sqlembed.Aggregates {
	return sqlembed.Aggregates{
		TimeNS:   func(c string) string { return c },
		TimeUnit: 1,
		OctetLen: func(c string) string { return "length(CAST(" + c + " AS BLOB))" },
	}
}

// Querying: times are integer nanoseconds, compared and bucketed as
// integers.
func (*engine) Querying() sqlembed.Querying {
	return sqlembed.Querying{Dialect: sqlquery.SQLite(), ReadTime: sqlquery.UnixTime(time.Nanosecond)}
}

func (*engine) Checkpoint() string     { return "PRAGMA wal_checkpoint(TRUNCATE)" }
func (*engine) WAL(path string) string { return path + "-wal" }

func (*engine) Version(ctx context.Context, db *sql.DB) string {
	var v string
	if err := db.QueryRowContext(ctx, "SELECT 'SQLite ' || sqlite_version()").Scan(&v); err != nil {
		return ""
	}
	return v
}
