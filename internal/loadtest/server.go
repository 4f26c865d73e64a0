package loadtest

import (
	"context"
	"fmt"
	"net/http"
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

// PostgresURL is TSLOAD_POSTGRES (default the local server of
// scripts/start_postgres.sh), checked by a connection; it skips the test
// when the server is unreachable, unless CI is set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	PGConnect(t)
	return pgURL()
}

func pgURL() string {
	if u := os.Getenv("TSLOAD_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres"
}

// HTTPServer is the base URL in env (default def) of the server named name
// that script starts, once its GET /ping answers 2xx; it skips the test when
// the server is unreachable, unless CI is set.
func HTTPServer(t testing.TB, name, env, def, script string) string {
	t.Helper()
	u := os.Getenv(env)
	if u == "" {
		u = def
	}
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(u + "/ping")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			err = fmt.Errorf("GET /ping answered %d", resp.StatusCode)
		}
	}
	if err != nil {
		SkipOrFail(t,
			fmt.Sprintf("%s at %s unreachable: %v (run %s)", name, u, err, script),
			fmt.Sprintf("%s at %s unreachable under CI: %v (run %s)", name, u, err, script))
	}
	return u
}

// PGConnect connects to TSLOAD_POSTGRES (default the local server of
// scripts/start_postgres.sh) and closes the connection when the test ends;
// it skips the test when the server is unreachable, unless CI is set.
func PGConnect(t testing.TB) *pgx.Conn {
	t.Helper()
	url := pgURL()
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
