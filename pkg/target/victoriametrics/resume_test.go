package victoriametrics

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
)

// TestResumeAfterLoaderKill kills load_victoriametrics with SIGKILL at
// several points of a load, resumes it with --resume, and checks that the
// server holds every row once: batches in doubt are sent again, and with
// -dedup.minScrapeInterval=1ms a series keeps one sample per millisecond.
func TestResumeAfterLoaderKill(t *testing.T) {
	base := vmtest.RealURL(t)
	var dbs loadtest.TableDBs
	loadtest.ResumeSuite{
		Command:  "github.com/tsload/tsload/cmd/load_victoriametrics",
		Upstream: base,
		Args: func(t *testing.T, proxy, table string) []string {
			db := loadtest.UniqueDB(t)
			vmtest.DropAtEnd(t, base, db)
			dbs.Set(table, db)
			return []string{"--urls", "http://" + proxy, "--db-name", db, "--drop-db"}
		},
		Rows: func(t *testing.T, table string) (rows, keys int64) {
			db := dbs.Get(table)
			return vmtest.Rows(t, base, db, table+"_v")
		},
	}.Run(t, "resume")
}
