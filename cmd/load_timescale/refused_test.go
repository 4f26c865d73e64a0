package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestRefusedInputDropsNothing: a csv file with --method copy-binary (which
// cannot carry csv) and --drop-db leaves the database as it was.
func TestRefusedInputDropsNothing(t *testing.T) {
	base, db := freshDB(t, "tsload_refused")
	loadtest.RefusedInput{
		Spec:    spec(),
		Args:    []string{"--postgres", base, "--db-name", db},
		BadArgs: []string{"--method", "copy-binary"},
		Table:   "refused",
		WantErr: "copy-binary needs pgcopy or ILP input, not csv",
		Count: func(t testing.TB) int64 {
			cfg, err := pgx.ParseConfig(base)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Database = db
			conn, err := pgx.ConnectConfig(context.Background(), cfg)
			if err != nil {
				t.Fatalf("the database is gone: %v", err)
			}
			defer conn.Close(context.Background())
			var n int64
			if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM refused`).Scan(&n); err != nil {
				t.Fatalf("the table is gone: %v", err)
			}
			return n
		},
	}.Run(t)
}
