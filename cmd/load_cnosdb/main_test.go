package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/results"
)

// The loader's tests run against the real CnosDB of scripts/start_cnosdb.sh
// (CNOSDB_URL for another); they skip when it is down and fail when CI is
// set.

func TestMain_Load(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	os.WriteFile(in, []byte("cpu,h=a v=1 1\ncpu,h=b v=2 1\nmem,h=a f=1i 2\n"), 0o644)
	resultsPath := filepath.Join(dir, "r.json")
	loadtest.RunCLI(t, spec(), []string{"load_cnosdb", "--urls", base, "--file", in,
		"--db-name", db, "--db-ttl", "INF", "--db-shards", "2", "--gzip", "--results-file", resultsPath}, resultsPath, "").Verified(t, 3)
	for table, want := range map[string]string{"cpu": `[{"n":2}]`, "mem": `[{"n":1}]`} {
		if st, body, err := cnosdbtest.SQL(base, "root", "", db, "SELECT count(*) AS n FROM "+table); err != nil || st != 200 || body != want {
			t.Errorf("%s: %d %s %v, want %s", table, st, body, err, want)
		}
	}
	st, body, err := cnosdbtest.SQL(base, "root", "", "", "DESCRIBE DATABASE "+db)
	if err != nil || st != 200 || !strings.Contains(body, `"shard":2`) || !strings.Contains(body, `"ttl":"INF"`) {
		t.Fatalf("database options: %d %s %v", st, body, err)
	}
}

// TestMain_Refused: a refused batch (a bad line) fails the run, names the
// line, and is not counted.
func TestMain_Refused(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	var b strings.Builder
	for i := 0; i < 100; i++ {
		if i == 57 {
			b.WriteString("cpu,h=x v=oops 1\n")
			continue
		}
		fmt.Fprintf(&b, "cpu,h=h%d v=%d 1\n", i, i)
	}
	os.WriteFile(in, []byte(b.String()), 0o644)
	resultsPath := filepath.Join(dir, "r.json")
	r := loadtest.RunCLI(t, spec(), []string{"load_cnosdb", "--urls", base, "--file", in,
		"--db-name", db, "--batch-size", "10", "--workers", "1", "--results-file", resultsPath}, resultsPath, "040004")
	res := loadtest.ReadResults(t, resultsPath)
	if st, body, _ := cnosdbtest.SQL(base, "root", "", db, "SELECT count(*) AS n FROM cpu"); res.Status != results.StatusFailed || res.Rows != 50 || st != 200 || body != `[{"n":50}]` {
		t.Fatalf("results %+v; server %d %s\n%s", res, st, body, r.Stderr)
	}
}
