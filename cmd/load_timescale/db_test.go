package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/results"
)

// postgresURL is the server of scripts/start_postgres.sh (skip when it is
// unreachable and CI is unset).
func postgresURL(t *testing.T) string { return loadtest.PostgresURL(t) }

// freshDB returns the server's URL and the name of a database no other run
// uses (prefix_N), dropped when the test ends.
func freshDB(t *testing.T, prefix string) (base, db string) {
	base = postgresURL(t)
	db = fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		if conn, err := pgx.Connect(context.Background(), base); err == nil {
			conn.Exec(context.Background(), `DROP DATABASE IF EXISTS "`+db+`" WITH (FORCE)`)
			conn.Close(context.Background())
		}
	})
	return base, db
}

// loadInto runs load_timescale with args into database db of the server at
// base, fails the test unless the run ends as wanted (wantErr "": no
// error; else an error containing wantErr), and returns the run and its
// results.
func loadInto(t *testing.T, base, db, wantErr string, args ...string) (loadtest.CLIRun, results.Results) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	r := loadtest.RunCLI(t, spec(), append([]string{"load_timescale", "--postgres", base, "--db-name", db, "--results-file", path}, args...), path, wantErr)
	return r, loadtest.ReadResults(t, path)
}
