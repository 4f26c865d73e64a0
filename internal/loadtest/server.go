package loadtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SkipOrFail is the rule for a test whose server is unreachable: skip it
// with skip, unless CI is set (every server must be up there): then fail it
// with fail.
func SkipOrFail(t testing.TB, skip, fail string) {
	t.Helper()
	if os.Getenv("CI") == "" {
		t.Skip(skip)
	}
	t.Fatal(fail)
}

// PGConnect connects to TSLOAD_POSTGRES (default the local server of
// scripts/start_postgres.sh) and closes the connection when the test ends;
// it skips the test when the server is unreachable, unless CI is set.
func PGConnect(t testing.TB) *pgx.Conn {
	t.Helper()
	url := os.Getenv("TSLOAD_POSTGRES")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres"
	}
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
