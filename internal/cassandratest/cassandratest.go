// Package cassandratest is what the Cassandra tests share: the real server
// of scripts/start_cassandra.sh (TSLOAD_CASSANDRA for another), a keyspace
// of each test's own, dropped when the test ends, and rows read from the
// server directly (not through the target).
package cassandratest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/cassandra"
)

// DefaultAddr is where scripts/start_cassandra.sh runs the local server.
const DefaultAddr = "127.0.0.1:9042"

// reach checks that addr accepts connections.
func reach(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// Addr returns the host:port of the real Cassandra the tests use:
// TSLOAD_CASSANDRA, or the local server of scripts/start_cassandra.sh. When
// it does not answer, the test is skipped, or failed when CI is set.
func Addr(t testing.TB) string {
	t.Helper()
	return loadtest.Server(t, "Cassandra", "TSLOAD_CASSANDRA", DefaultAddr, "scripts/start_cassandra.sh", reach)
}

// Keyspace is Addr and a keyspace name of the test's own (at most 48
// characters, Cassandra's limit), dropped when the test ends.
func Keyspace(t testing.TB) (addr, ks string) {
	t.Helper()
	addr = Addr(t)
	ks = UniqueKeyspace(t)
	DropAtEnd(t, addr, ks)
	return addr, ks
}

// UniqueKeyspace is a keyspace name of the test's own: loadtest.UniqueDB cut
// to Cassandra's 48 characters.
func UniqueKeyspace(t testing.TB) string {
	ks := loadtest.UniqueDB(t)
	if len(ks) > 48 {
		ks = ks[:38] + ks[len(ks)-10:]
	}
	return ks
}

// DropAtEnd drops keyspace ks of the server at addr when t ends.
func DropAtEnd(t testing.TB, addr, ks string) {
	t.Cleanup(func() {
		s, err := session(addr)
		if err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
			return
		}
		defer s.Close()
		if err := s.Query(`DROP KEYSPACE IF EXISTS "` + ks + `"`).Exec(); err != nil {
			t.Logf("drop keyspace %s: %v", ks, err)
		}
	})
}

func session(addr string) (*gocql.Session, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	c := gocql.NewCluster(host)
	c.Port, _ = strconv.Atoi(port)
	c.DisableInitialHostLookup = true
	c.Consistency = gocql.One
	c.Timeout = 60 * time.Second
	return c.CreateSession()
}

// Session is a session on addr, closed when the test ends.
func Session(t testing.TB, addr string) *gocql.Session {
	t.Helper()
	s, err := session(addr)
	if err != nil {
		t.Fatalf("cassandra at %s: %v", addr, err)
	}
	t.Cleanup(s.Close)
	return s
}

// Rows reads every (time, host) key of table (as the target names it:
// cassandra.TableName) in keyspace ks: the rows the
// table holds and the distinct keys among them (0, 0 when the table or
// the keyspace does not exist).
func Rows(t testing.TB, addr, ks, table string) (rows, keys int64) {
	t.Helper()
	table, err := cassandra.TableName(table)
	if err != nil {
		t.Fatal(err)
	}
	s := Session(t, addr)
	var n int
	if err := s.Query("SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, table).
		Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return 0, 0
	}
	it := s.Query(fmt.Sprintf(`SELECT "host", "time" FROM %q.%q`, ks, table)).WithContext(context.Background()).PageSize(10000).Iter()
	seen := map[string]struct{}{}
	var host string
	var tm time.Time
	for it.Scan(&host, &tm) {
		rows++
		seen[host+"\x00"+strconv.FormatInt(tm.UnixMilli(), 10)] = struct{}{}
	}
	if err := it.Close(); err != nil {
		t.Fatalf("rows of %s.%s: %v", ks, table, strings.TrimSpace(err.Error()))
	}
	return rows, int64(len(seen))
}
