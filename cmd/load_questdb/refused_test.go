package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/questdb"
)

// TestRefusedInputDropsNothing: a csv file naming an existing table, with
// --drop-db, leaves the table as it was (QuestDB is loaded over ILP only).
func TestRefusedInputDropsNothing(t *testing.T) {
	httpURL := envOr("TSLOAD_QUESTDB_HTTP", "http://127.0.0.1:9000")
	pg := envOr("TSLOAD_QUESTDB_PG", "postgres://admin:quest@127.0.0.1:8812/qdb")
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(httpURL + "/ping")
	if err != nil {
		loadtest.SkipOrFail(t,
			fmt.Sprintf("QuestDB unreachable: %v (run scripts/start_questdb.sh)", err),
			fmt.Sprintf("QuestDB unreachable under CI: %v", err))
	}
	resp.Body.Close()
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
		WantErr: "csv input",
		Count: func(t testing.TB) int64 {
			n, err := tg.Count(context.Background(), []string{table})
			if err != nil {
				t.Fatal(err)
			}
			return n[table]
		},
	}.Run(t)
}
