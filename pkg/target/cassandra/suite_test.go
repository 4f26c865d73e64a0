package cassandra_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/cassandratest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/cassandra"
)

// newTarget makes the suites' targets: keyspace ks at addr (the suites put
// a fault proxy there).
func newTarget(ks string) loadtest.NewFunc {
	return func(t *testing.T, addr string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := cassandra.New(cassandra.Config{Addr: addr, Keyspace: ks, RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{DBName: ks, CreateDB: true}
	}
}

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the
// real Cassandra, with its fault scenarios (a tag longer than a partition
// key may be is refused for good; no private server to kill: a Cassandra of
// the test's own takes a minute and a gigabyte to start) and its loader
// kills (resume: batches in doubt are sent again, and an INSERT of the same
// key replaces the row). Rows are read from the server directly.
func TestTargetSuite(t *testing.T) {
	addr, ks := cassandratest.Keyspace(t)
	rows := func(t *testing.T, _ load.Target, table string) (int64, int64) {
		return cassandratest.Rows(t, addr, ks, table)
	}
	s := loadtest.TargetSuite{Loader: "load_cassandra", Upstream: addr, New: newTarget(ks), Rows: rows, Values: "Cassandra"}
	s.Faults = &loadtest.FaultSuite{
		Refuse: func(line string) string {
			return strings.Replace(line, "host=", "host="+strings.Repeat("x", 70000), 1)
		},
		RefuseErr: []string{"the partition key (tags [host] and the bucket) is", "Cassandra's limit is 65535"},
	}
	s.Resume = &loadtest.ResumeSuite{
		DB: func(t *testing.T) string { return ks },
		Args: func(_ *testing.T, proxy, _, _ string) []string {
			return []string{"--host", proxy}
		},
		Rows: func(t *testing.T, db, table string) (int64, int64) { return cassandratest.Rows(t, addr, db, table) },
	}
	s.Run(t, "suite")
}
