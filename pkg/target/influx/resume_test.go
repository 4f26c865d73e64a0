package influx

import (
	"context"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestResumeAfterLoaderKill kills load_influx with SIGKILL at several
// points of a load, resumes it with --resume, and checks that the
// measurement holds every point once: batches in doubt are sent again, and
// InfluxDB stores a point sent twice once.
func TestResumeAfterLoaderKill(t *testing.T) {
	base := influxURL(t)
	var dbs loadtest.TableDBs
	loadtest.ResumeSuite{
		Command:  "github.com/tsload/tsload/cmd/load_influx",
		Upstream: base,
		Args: func(t *testing.T, proxy, table string) []string {
			db := uniqueDB(t)
			dbs.Set(table, db)
			t.Cleanup(func() {
				if tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}}, Precision: "n"}); err == nil {
					tg.Query(context.Background(), "", "DROP DATABASE "+quoteIdent(db))
					tg.Close()
				}
			})
			return []string{"--urls", "http://" + proxy, "--db-name", db, "--drop-db", "--precision", "n"}
		},
		Rows: func(t *testing.T, table string) (rows, keys int64) {
			db := dbs.Get(table)
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}}, DBName: db, Precision: "n"})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			got, err := tg.Count(context.Background(), []string{table})
			if err != nil {
				t.Fatal(err)
			}
			// A point is stored once per series and time: the count is
			// the distinct keys.
			return got[table], got[table]
		},
	}.Run(t, "resume")
}
