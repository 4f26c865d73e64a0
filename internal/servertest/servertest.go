// Package servertest is what a test needs to reach a real server started
// by the repository's scripts, with nothing of the loaders in it: packages
// below the runner (pkg/gen) test against PostgreSQL with it, where
// internal/loadtest (which imports the runner, and the runner pkg/gen)
// would be an import cycle. internal/loadtest's server helpers are these.
package servertest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SkipOrFail skips the test with skip, unless CI is set: then it fails
// with fail (CI starts every server; one that is not there is a defect).
func SkipOrFail(t testing.TB, skip, fail string) {
	t.Helper()
	if os.Getenv("CI") == "" {
		t.Skip(skip)
	}
	t.Fatal(fail)
}

// PostgresURL is TSLOAD_POSTGRES, by default the local server of
// scripts/start_postgres.sh.
func PostgresURL() string {
	if u := os.Getenv("TSLOAD_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres"
}

// PGConnect connects to PostgresURL, closed when the test ends; it skips
// the test when the server is unreachable, unless CI is set.
func PGConnect(t testing.TB) *pgx.Conn {
	t.Helper()
	url := PostgresURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		SkipOrFail(t,
			fmt.Sprintf("PostgreSQL unreachable at %s (start it with scripts/start_postgres.sh): %v", url, err),
			fmt.Sprintf("PostgreSQL unreachable at %s: %v", url, err))
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// PGConnectDB connects to database db of the PostgresURL server, closed
// when the test ends; an error fails the test (one that made db knows the
// server is there).
func PGConnectDB(t testing.TB, db string) *pgx.Conn {
	t.Helper()
	conn := PGConnectURL(t, PostgresURL(), db)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// PGConnectURL connects to database db of the server at url (a private
// one); the caller closes the connection; an error fails the test.
func PGConnectURL(t testing.TB, url, db string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = db
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}
