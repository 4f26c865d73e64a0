package questdb

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// rowsThenDrop reads table's rows and distinct keys, and drops it when the
// test ends.
func rowsThenDrop(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	q := tg.(*Target)
	rows, keys = questdbRows(t, q, table)
	t.Cleanup(func() {
		if qr, err := q.withQuerier(context.Background()); err == nil {
			qr.query(context.Background(), "DROP TABLE IF EXISTS "+quote(table))
		}
	})
	return rows, keys
}

// proxied makes the suite's targets: ILP/HTTP through the proxy, DEDUP
// tables, counts over pg (not proxied).
func proxied(pg string) func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
	return func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Transport: HTTP, URL: "http://" + proxy, PG: pg, Dedup: true, WALTimeout: time.Minute,
			RequestTimeout: timeout, MinThroughput: 1 << 30, Lookup: suiteTable})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg, load.PrepareOptions{CreateDB: true, DropDB: true}
	}
}

// suiteTable is testTable, except for the generated cpu table of the
// suite's query load (its name ends in _q_cpu): that one is created from
// its lines (DEDUP on their tags), as a use-case table loaded under a
// prefix would be; so are the value classes' tables (_val_), whose field
// v has a type of each class.
func suiteTable(name string) *schema.Table {
	if name == "cpu" || strings.HasSuffix(name, "_q_cpu") || strings.Contains(name, "_val_") {
		return nil
	}
	return testTable(name)
}

// privateQuestDB starts a QuestDB of the test's own (scripts/start_questdb.sh
// with its own root and free ports) for the suite's kill scenario; counts
// go over its PG wire, which the kill cuts too (a stale connection that
// verification must replace).
func privateQuestDB(t *testing.T) loadtest.Private {
	srv, s := startPrivateQuestDB(t)
	return loadtest.Private{
		Upstream: s.http,
		New:      proxied(s.pg),
		Rows: func(t *testing.T, _ load.Target, table string) (rows, keys int64) {
			direct, err := New(Config{Transport: HTTP, URL: s.http, PG: s.pg, Dedup: true, WALTimeout: time.Minute, Lookup: testTable})
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			return questdbRows(t, direct, table)
		},
		Kill: srv.Kill, Start: srv.Start,
	}
}

// TestCountAfterKill: the count's PG-wire connection goes stale when the
// server is killed and started again; the next Count fails retryable (the
// runner retries it) and the one after counts, on a new connection. Before,
// verification failed with "wal_tables(): unexpected EOF" although the
// table held every row.
func TestCountAfterKill(t *testing.T) {
	server(t) // the shared server's skip rule
	if testing.Short() {
		t.Skip("-short: no server kill")
	}
	srv, s := startPrivateQuestDB(t)
	tg, err := New(Config{Transport: HTTP, URL: s.http, PG: s.pg, WALTimeout: time.Minute, Lookup: testTable})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	if _, err := tg.Count(ctx, []string{"none"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Count(ctx, []string{"none"}); err != nil && !load.IsRetryable(err) {
		t.Fatalf("count on the stale connection: %v (not retryable)", err)
	}
	if got, err := tg.Count(ctx, []string{"none"}); err != nil || got["none"] != 0 {
		t.Fatalf("count after the restart: %v %v", got, err)
	}
}

// startPrivateQuestDB starts a QuestDB of the test's own
// (scripts/start_questdb.sh with its own root and free ports).
func startPrivateQuestDB(t *testing.T) (*loadtest.ScriptServer, qdb) {
	root := t.TempDir()
	port := func() string { return strconv.Itoa(loadtest.FreePort(t)) }
	httpPort, pgPort := port(), port()
	srv := &loadtest.ScriptServer{StartScript: "scripts/start_questdb.sh", StopScript: "scripts/stop_questdb.sh",
		Env: []string{"QUESTDB_ROOT=" + root, "QUESTDB_HTTP_PORT=" + httpPort, "QUESTDB_PG_PORT=" + pgPort,
			"QUESTDB_ILP_PORT=" + port(), "QUESTDB_MIN_PORT=" + port(), "QUESTDB_XMX=512m", "QUESTDB_WORKERS=1"},
		PIDFile: filepath.Join(root, "questdb.pid")}
	srv.Run(t)
	return srv, qdb{http: "http://127.0.0.1:" + httpPort, pg: "postgres://admin:quest@127.0.0.1:" + pgPort + "/qdb"}
}

// questdbRows counts table's rows and distinct (timestamp, host) keys.
func questdbRows(t *testing.T, q *Target, table string) (rows, keys int64) {
	ctx := context.Background()
	counts, err := q.Count(ctx, []string{table})
	if err != nil {
		t.Fatal(err)
	}
	qr, err := q.withQuerier(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := qr.query(ctx, "SELECT count() FROM (SELECT DISTINCT timestamp, host FROM "+quote(table)+")")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ = strconv.ParseInt(out[0][0], 10, 64)
	return counts[table], keys
}
