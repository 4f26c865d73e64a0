package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/questdb"
)

// TestRefusedInputDropsNothing: a csv file naming an existing table, with
// --drop-db, leaves the table as it was (QuestDB is loaded over ILP only).
func TestRefusedInputDropsNothing(t *testing.T) {
	httpURL, pg := questdbServer(t)
	table := fmt.Sprintf("refused_%d", time.Now().UnixNano()%1e9)
	tg, err := questdb.New(questdb.Config{URL: httpURL, PG: pg})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	defer func() {
		if conn, err := pgx.Connect(context.Background(), pg); err == nil {
			conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+table)
			conn.Close(context.Background())
		}
	}()
	loadtest.RefusedInput{
		Spec:    spec(),
		Args:    []string{"--http-url", httpURL, "--pg", pg},
		Table:   table,
		WantErr: "pgcopy input",
		PGCopy:  true, // CSV is written as lines
		Count: func(t testing.TB) int64 {
			n, err := tg.Count(context.Background(), []string{table})
			if err != nil {
				t.Fatal(err)
			}
			return n[table]
		},
	}.Run(t)
}
