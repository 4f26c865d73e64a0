package cnosdbtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// DefaultURL is where scripts/start_cnosdb.sh runs the local server.
const DefaultURL = "http://127.0.0.1:8902"

// Ping asks base's /api/v1/ping whether a healthy CnosDB answers.
var Ping = loadtest.Healthy("/api/v1/ping", func(status int, body string) bool {
	return status == 200 && strings.Contains(body, `"healthy"`)
})

// RealURL returns the base URL of the real CnosDB the tests use: CNOSDB_URL,
// or the local server of scripts/start_cnosdb.sh. When it does not answer,
// the test is skipped, or failed when CI is set (CI starts the server).
func RealURL(t testing.TB) string {
	t.Helper()
	return loadtest.Server(t, "CnosDB", "CNOSDB_URL", DefaultURL, "scripts/start_cnosdb.sh", Ping)
}

// RealDB is RealURL and a database name of the test's own (UniqueDB),
// dropped when the test ends.
func RealDB(t testing.TB) (base, db string) {
	t.Helper()
	base, db = RealURL(t), UniqueDB(t)
	DropAtEnd(t, base, db)
	return base, db
}

// UniqueDB returns a database name of the test's own.
func UniqueDB(t testing.TB) string { return loadtest.UniqueDB(t) }

// SQL posts stmt to base's /api/v1/sql (tenant cnosdb, db when set) as
// user:password and returns the status and body.
func SQL(base, user, password, db, stmt string) (int, string, error) {
	q := url.Values{"tenant": {"cnosdb"}}
	if db != "" {
		q.Set("db", db)
	}
	req, err := http.NewRequest("POST", base+"/api/v1/sql?"+q.Encode(), strings.NewReader(stmt))
	if err != nil {
		return 0, "", err
	}
	req.SetBasicAuth(user, password)
	req.Header.Set("Accept", "application/json")
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// DropAtEnd drops db on base (as root without a password) when the test ends.
func DropAtEnd(t testing.TB, base, db string) {
	t.Cleanup(func() {
		if st, body, err := SQL(base, "root", "", "", `DROP DATABASE IF EXISTS "`+db+`"`); err != nil || st != 200 {
			t.Logf("drop %s: %d %s %v", db, st, body, err)
		}
	})
}

// Count returns count(*) of table in db on base (0 when the table was never
// written), failing t when the server answers anything else.
func Count(t testing.TB, base, db, table string) int64 {
	t.Helper()
	st, body, err := SQL(base, "root", "", db, `SELECT count(*) AS n FROM "`+table+`"`)
	if err == nil && st == 422 && strings.Contains(body, "Table not found") {
		return 0
	}
	var rows []struct{ N int64 }
	if err == nil && st == 200 {
		err = json.Unmarshal([]byte(body), &rows)
	}
	if err != nil || st != 200 || len(rows) != 1 {
		t.Fatalf("count %s.%s: %d %s %v", db, table, st, body, err)
	}
	return rows[0].N
}
