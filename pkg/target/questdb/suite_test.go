package questdb

import (
	"context"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real QuestDB, ILP over HTTP into DEDUP tables (DDL and counts over PG
// wire, not proxied), with its fault scenarios (faults: a re-send of a
// request that did commit cannot duplicate rows; the kill is a QuestDB of
// the test's own, privateQuestDB, never the shared one) and its loader
// kills (resume: batches in doubt are sent again, and DEDUP stores a row
// sent twice once).
func TestTargetSuite(t *testing.T) {
	s := server(t)
	loadtest.TargetSuite{Loader: "load_questdb", Upstream: s.http, New: proxied(s.pg), Rows: rowsThenDrop, Values: "QuestDB",
		Faults: &loadtest.FaultSuite{
			// A string where the table has a DOUBLE: 400, the request rolled back.
			Refuse:    func(line string) string { return strings.Replace(line, " v=", ` v="oops",w=`, 1) },
			RefuseErr: []string{"line 3457", "400"},
			Private:   privateQuestDB,
		},
		Resume: &loadtest.ResumeSuite{
			Args: func(t *testing.T, proxy, _, table string) []string {
				// Made with DEDUP here: QuestDB would create a table of a name
				// no use case has on first write, without DEDUP.
				direct, err := New(Config{Transport: HTTP, URL: s.http, PG: s.pg, Dedup: true, Lookup: testTable})
				if err != nil {
					t.Fatal(err)
				}
				defer direct.Close()
				qr, err := direct.withQuerier(context.Background())
				if err == nil {
					_, err = qr.query(context.Background(), CreateTableSQL(testTable(table), true))
				}
				if err != nil {
					t.Fatal(err)
				}
				return []string{"--http-url", "http://" + proxy, "--pg", s.pg, "--dedup", "--wal-timeout", "1m"}
			},
			Again: []string{"--pg", s.pg}, // its password is masked in the journal
		},
	}.Run(t, uniqueName(t, "suite"))
}
