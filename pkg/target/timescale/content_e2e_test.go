package timescale

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// runContent loads data through the runner with content verification
// into a fresh database, tg wrapped so that corrupt (when not nil) runs
// between the last batch and verification.
func runContent(t *testing.T, data string, corrupt func(ctx context.Context, db string) error) (*results.Results, error, string) {
	t.Helper()
	requireServer(t)
	cfg := Config{URL: pgURL(), DBName: testDBName(t), UseHypertable: hypertableMode()}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(); dropDB(t, cfg.DBName) })
	var c func(ctx context.Context) error
	if corrupt != nil {
		c = func(ctx context.Context) error { return corrupt(ctx, cfg.DBName) }
	}
	return contenttest.Load(t, tg, data, c, runner.Config{
		BatchSize: 3, Workers: 2, RetryTimeout: 10 * time.Second,
		Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
		Loader:  "load_timescale", Target: "timescale",
	})
}

// TestRunnerContent: a load verifies its content (the weather table's
// float4 columns without false failures); a value changed behind the
// loader's back with the count kept fails naming the field; a timestamp
// moved fails on the time range.
func TestRunnerContent(t *testing.T) {
	res, err, log := runContent(t, contentILP, nil)
	if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Mode != "content" || len(res.Verify.Content) != 2 {
		t.Fatalf("clean load: %v %+v\n%s", err, res.Verify, log)
	}
	exec := func(stmt string) func(ctx context.Context, db string) error {
		return func(ctx context.Context, db string) error {
			conn := dbConn(t, db)
			_, err := conn.Exec(ctx, stmt)
			return err
		}
	}
	for _, tc := range []struct{ name, stmt, want string }{
		{"value", `UPDATE m SET i = -6 WHERE i = -5`, `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`},
		{"float4", `UPDATE weather SET temperature_2m = 35.06 WHERE temperature_2m > 35`, `table "weather" field "temperature_2m": sum expected`},
		{"time", `UPDATE m SET time = time + interval '1 hour' WHERE host = 'b'`, `table "m": max time expected 1970-01-01T00:00:04.0000015Z`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err, log := runContent(t, contentILP, exec(tc.stmt))
			if err == nil || res.Verify == nil || res.Verify.OK || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "rows expected") {
				t.Fatalf("after %s: %v\n%s", tc.stmt, err, log)
			}
			if !strings.Contains(log, "verify content MISMATCH: "+tc.want) {
				t.Errorf("the summary does not name the mismatch:\n%s", log)
			}
		})
	}
}
