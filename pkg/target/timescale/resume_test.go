package timescale

import (
	"context"
	"net/url"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/schema"
)

// TestResumeAfterLoaderKill kills load_timescale with SIGKILL at several
// points of a load, resumes it with --resume, and checks that the table
// holds every row exactly once: batches in doubt are settled by their
// transaction ids, never written twice.
func TestResumeAfterLoaderKill(t *testing.T) {
	requireServer(t)
	var dbs loadtest.TableDBs
	loadtest.ResumeSuite{
		Command:  "github.com/tsload/tsload/cmd/load_timescale",
		Upstream: pgURL(),
		Args: func(t *testing.T, proxy, table string) []string {
			u, err := url.Parse(pgURL())
			if err != nil {
				t.Fatal(err)
			}
			u.Host = proxy
			db := testDBName(t)
			t.Cleanup(func() { dropDB(t, db) })
			dbs.Set(table, db)
			return []string{"--postgres", u.String(), "--db-name", db, "--drop-db"}
		},
		Rows: func(t *testing.T, table string) (rows, keys int64) {
			db := dbs.Get(table)
			q := "SELECT count(*), count(DISTINCT (host, time)) FROM " + schema.QuoteIdent(table)
			if err := dbConn(t, db).QueryRow(context.Background(), q).Scan(&rows, &keys); err != nil {
				t.Fatal(err)
			}
			return rows, keys
		},
	}.Run(t, "resume")
}
