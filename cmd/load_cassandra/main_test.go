package main

import (
	"fmt"
	"testing"

	"github.com/tsload/tsload/internal/cassandratest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/owndatatest"
)

// The loader's tests run against the real Cassandra of
// scripts/start_cassandra.sh (TSLOAD_CASSANDRA for another); they skip when
// it is down and fail when CI is set.

func TestMain_Load(t *testing.T) {
	addr, ks := cassandratest.Keyspace(t)
	loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,h=a v=1 1000000\ncpu,h=b v=2 1000000\nmem,h=a f=1i 2000000\n", "",
		"--host", addr, "--db-name", ks, "--consistency", "ONE", "--partition-bucket", "1h", "--verify", "content").Verified(t, 3)
	for table, want := range map[string]int64{"cpu": 2, "mem": 1} {
		var n int64
		if err := cassandratest.Session(t, addr).Query(fmt.Sprintf(`SELECT count(*) FROM %q.%q`, ks, table)).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d rows (%v), want %d", table, n, err, want)
		}
	}
}

// TestMain_Refused: a batch holding a value CQL cannot store as sent (a
// timestamp with a sub-millisecond part) fails the run, names its records,
// and nothing of it is written or counted.
func TestMain_Refused(t *testing.T) {
	addr, ks := cassandratest.Keyspace(t)
	loadtest.RefusedBatch(t, spec(), []string{"--host", addr, "--db-name", ks},
		func(i int) string { return fmt.Sprintf("cpu,host=h%d v=%d %d", i, i, int64(i)*1e6) }, "cpu,host=x v=1 1000001",
		func(t testing.TB) int64 { n, _ := cassandratest.Rows(t, addr, ks, "cpu"); return n }, "sub-millisecond part")
}

// TestMain_Unstorable: values CQL cannot store as sent are refused with
// the record named.
func TestMain_Unstorable(t *testing.T) {
	addr := cassandratest.Addr(t)
	for _, c := range []struct{ name, in, want string }{
		{"uint", "cpu,host=a v=18446744073709551615u 1000000\n", `input line 1 or after: field "v": 18446744073709551615 is out of range for a bigint column`},
		{"utf8", "cpu,host=\xff v=1 1000000\n", "record 1 (line 1, byte offset 0): invalid UTF-8"},
		{"nanoseconds", "cpu,host=a v=1 1\n", "input line 1 or after: timestamp 1 ns has a sub-millisecond part"},
		{"new tag", "cpu,host=a v=1 1000000\ncpu,host=a,rack=r v=1 2000000\n", `input line 2 or after: table "cpu" has no tag "rack"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ks := cassandratest.UniqueKeyspace(t)
			cassandratest.DropAtEnd(t, addr, ks)
			loadtest.RunOnInput(t, spec(), "in.ilp", c.in, c.want, "--host", addr, "--db-name", ks, "--drop-db")
		})
	}
}

// TestCSV loads CSV into the real Cassandra (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	addr := cassandratest.Addr(t)
	owndatatest.CSVSuite{Spec: spec(), Args: func(t *testing.T, _ string) []string {
		ks := cassandratest.UniqueKeyspace(t)
		cassandratest.DropAtEnd(t, addr, ks)
		return []string{"--host", addr, "--db-name", ks}
	}}.Run(t, "csv_")
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	addr, ks := cassandratest.Keyspace(t)
	owndatatest.TSBSLines(t, spec(), "", "--host", addr, "--db-name", ks)
}
