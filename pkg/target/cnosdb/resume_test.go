package cnosdb

import (
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestResumeAfterLoaderKill kills load_cnosdb with SIGKILL at several
// points of a load, resumes it with --resume, and checks that the table
// holds every row once: batches in doubt are sent again, and CnosDB
// stores a row of the same series and time once.
func TestResumeAfterLoaderKill(t *testing.T) {
	base := cnosdbtest.RealURL(t)
	var dbs loadtest.TableDBs
	loadtest.ResumeSuite{
		Command:  "github.com/tsload/tsload/cmd/load_cnosdb",
		Upstream: base,
		Args: func(t *testing.T, proxy, table string) []string {
			db := cnosdbtest.UniqueDB(t)
			cnosdbtest.DropAtEnd(t, base, db)
			dbs.Set(table, db)
			return []string{"--urls", "http://" + proxy, "--db-name", db, "--drop-db", "--user", "root"}
		},
		Rows: func(t *testing.T, table string) (rows, keys int64) {
			db := dbs.Get(table)
			return distinctRows(t, base, db, table)
		},
	}.Run(t, "resume")
}
