package loadtest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tsload/tsload/internal/servertest"
)

// SkipOrFail is the rule for a test whose server is unreachable: skip it
// with skip, unless CI is set (every server must be up there): then fail it
// with fail.
func SkipOrFail(t testing.TB, skip, fail string) {
	t.Helper()
	servertest.SkipOrFail(t, skip, fail)
}

// PostgresURL is TSLOAD_POSTGRES (default the local server of
// scripts/start_postgres.sh), checked by a connection; it skips the test
// when the server is unreachable, unless CI is set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	PGConnect(t)
	return pgURL()
}

func pgURL() string { return servertest.PostgresURL() }

// HTTPServer is the base URL in env (default def) of the server named name
// that script starts, once its GET /ping answers 2xx; it skips the test when
// the server is unreachable, unless CI is set.
func HTTPServer(t testing.TB, name, env, def, script string) string {
	t.Helper()
	return Server(t, name, env, def, script, Healthy("/ping", func(status int, _ string) bool { return status/100 == 2 }))
}

// Server is the base URL in env (default def) of the server named name that
// script starts, once check says it answers; it skips the test when the
// server is unreachable, unless CI is set.
func Server(t testing.TB, name, env, def, script string, check func(base string) error) string {
	t.Helper()
	u := os.Getenv(env)
	if u == "" {
		u = def
	}
	if err := check(u); err != nil {
		SkipOrFail(t,
			fmt.Sprintf("%s at %s unreachable: %v (run %s)", name, u, err, script),
			fmt.Sprintf("%s at %s unreachable under CI: %v (run %s)", name, u, err, script))
	}
	return u
}

// Healthy returns a check of a server (for Server): GET path answers, in
// two seconds, what ok accepts (the status and up to 1 KiB of the body).
func Healthy(path string, ok func(status int, body string) bool) func(base string) error {
	return func(base string) error {
		c := http.Client{Timeout: 2 * time.Second}
		resp, err := c.Get(base + path)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		if !ok(resp.StatusCode, string(body)) {
			return fmt.Errorf("GET %s answered %d %s", path, resp.StatusCode, body)
		}
		return nil
	}
}

// PGConnect connects to TSLOAD_POSTGRES (default the local server of
// scripts/start_postgres.sh) and closes the connection when the test ends;
// it skips the test when the server is unreachable, unless CI is set.
func PGConnect(t testing.TB) *pgx.Conn {
	t.Helper()
	return servertest.PGConnect(t)
}
