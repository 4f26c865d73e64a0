package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// The loader's tests run against the real CnosDB of scripts/start_cnosdb.sh
// (CNOSDB_URL for another); they skip when it is down and fail when CI is
// set.

func TestMain_Load(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,h=a v=1 1\ncpu,h=b v=2 1\nmem,h=a f=1i 2\n", "",
		"--urls", base, "--db-name", db, "--db-ttl", "INF", "--db-shards", "2", "--gzip").Verified(t, 3)
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

// TestMain_Refused: a refused batch (a bad line) fails the run, names its
// records, and is not counted.
func TestMain_Refused(t *testing.T) {
	base, db := cnosdbtest.RealDB(t)
	loadtest.RefusedBatch(t, spec(), []string{"--urls", base, "--db-name", db},
		func(i int) string { return fmt.Sprintf("cpu,h=h%d v=%d 1", i, i) }, "cpu,h=x v=oops 1",
		func(t testing.TB) int64 { return cnosdbtest.Count(t, base, db, "cpu") }, "040004")
}
