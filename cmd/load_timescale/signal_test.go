package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestSignal interrupts a real load (slowed by 10 ms per forwarded chunk
// through a fault proxy) with SIGINT and SIGTERM (loadtest.SignalSuite).
func TestSignal(t *testing.T) {
	base := postgresURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	// Under CI the server has TimescaleDB (scripts/start_postgres.sh builds it).
	hypertable := "auto"
	if os.Getenv("CI") != "" {
		hypertable = "true"
	}
	loadtest.SignalSuite{
		Loader:   "load_timescale",
		Upstream: u.Host,
		Latency:  10 * time.Millisecond,
		Rows:     100000,
		Line: func(i int64) string {
			return fmt.Sprintf("sig_m,host=h%d v=%d.5,n=%di %d", i%50, i, i, 1600000000000000000+i/50*1e9)
		},
		Args: func(proxy, _ string) []string {
			via := *u
			via.Host = proxy
			return []string{"--postgres", via.String(), "--use-hypertable", hypertable}
		},
		Count: func(db string) (int64, error) {
			cfg, err := pgx.ParseConfig(base)
			if err != nil {
				return 0, err
			}
			cfg.Database = db
			conn, err := pgx.ConnectConfig(context.Background(), cfg)
			if err != nil {
				return 0, err
			}
			defer conn.Close(context.Background())
			var n int64
			err = conn.QueryRow(context.Background(), "SELECT count(*) FROM sig_m").Scan(&n)
			return n, err
		},
		Drop: func(db string) {
			if conn, err := pgx.Connect(context.Background(), base); err == nil {
				conn.Exec(context.Background(), `DROP DATABASE IF EXISTS "`+db+`" WITH (FORCE)`)
				conn.Close(context.Background())
			}
		},
	}.Run(t)
}
