package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestV3CLI runs load_influx against the real InfluxDB 3 Core of
// scripts/start_influxdb.sh --version 3 (auth on) as the README shows it:
// the token from INFLUX_TOKEN or --token, the API detected or named, with
// and without --no-sync, 2016 data; exact counts, and neither the token
// nor a wrong one appears in stderr, the error or the results file, also
// when the load fails (a wrong token, no server).
func TestV3CLI(t *testing.T) {
	r := influx3test.RealServer(t)
	const wrong = "Wr0ng-v3-t0ken"
	db := influx3test.UniqueDB(t)
	r.DropAtEnd(t, db)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "cpu,host=h%d usage=%d.5,idle=%di %d\n", i%30, i, i%7, 1451606400000000000+int64(i/30)*1e9)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	for _, tc := range []struct {
		name, env string
		args      []string
		wantErr   string
	}{
		{"env, detected", r.Token, []string{"--drop-db"}, ""},
		{"flag, no-sync", "", []string{"--drop-db", "--api", "v3", "--token", r.Token, "--no-sync"}, ""},
		{"env wrong, detected", wrong, nil, "a server that wants a token for it is InfluxDB 3"},
		{"flag wrong", "", []string{"--api", "v3", "--token", wrong}, "authentication failed (401): InfluxDB 3 needs a token"},
		{"env, no server", r.Token, []string{"--urls", "http://127.0.0.1:1", "--api", "v3", "--retry-timeout", "1s"}, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("INFLUX_TOKEN", tc.env)
			results := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			args := append([]string{"load_influx", "--urls", r.URL, "--db-name", db, "--file", in,
				"--batch-size", "1000", "--workers", "2", "--results-file", results}, tc.args...)
			run := loadtest.RunCLI(t, spec(), args, results, tc.wantErr)
			run.NoSecret(t, "the token", r.Token)
			run.NoSecret(t, "the wrong token", wrong)
			if !strings.Contains(string(run.Results), `"token": "REDACTED"`) {
				t.Errorf("results file does not show the token as REDACTED:\n%s", run.Results)
			}
			if tc.wantErr == "" && (!strings.Contains(run.Stderr, "verify OK") || !strings.Contains(run.Stderr, "cpu 3000/3000")) {
				t.Fatalf("no exact verify in the summary:\n%s", run.Stderr)
			}
		})
	}
	if n := r.Count(t, db, "cpu"); n != 3000 {
		t.Fatalf("the server holds %d rows", n)
	}
}
