package questdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestResumeAfterLoaderKill kills load_questdb with SIGKILL at several
// points of a load over ILP/HTTP into tables with DEDUP, resumes it with
// --resume, and checks that each row is there once: batches in doubt are
// sent again, and DEDUP stores a row sent twice once.
func TestResumeAfterLoaderKill(t *testing.T) {
	s := server(t)
	loadtest.ResumeSuite{
		Command:  "github.com/tsload/tsload/cmd/load_questdb",
		Upstream: s.http,
		Args: func(t *testing.T, proxy, table string) []string {
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
		Rows: func(t *testing.T, table string) (rows, keys int64) {
			direct, err := New(Config{Transport: HTTP, URL: s.http, PG: s.pg, Dedup: true, WALTimeout: time.Minute, Lookup: testTable})
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			t.Cleanup(func() {
				if qr, err := direct.withQuerier(context.Background()); err == nil {
					qr.query(context.Background(), "DROP TABLE IF EXISTS "+quote(table))
				}
			})
			return questdbRows(t, direct, table)
		},
		Again: []string{"--pg", s.pg}, // its password is masked in the journal
	}.Run(t, uniqueName(t, "resume"))
}

// TestResumeWithoutDedupRefused: a load into tables without DEDUP whose
// loader was killed may have batches written that it has no record of;
// resuming it is refused, naming the flags that decide, unless duplicates
// are accepted.
func TestResumeWithoutDedupRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	s := server(t)
	table := uniqueName(t, "resume_nodedup")
	defer loadtest.DropQuestDBTables(t, s.http, table)
	bin := loadtest.BuildCommand(t, "github.com/tsload/tsload/cmd/load_questdb")
	in := loadtest.RateLines(t, table, 1000)
	dir := t.TempDir()
	results := filepath.Join(dir, "r.json")
	run := func(args ...string) (string, error) { return loadtest.RunCommand(bin, args...) }
	if out, err := run("--file", in, "--batch-size", "100", "--http-url", s.http, "--pg", s.pg, "--dedup=false", "--drop-db", "--results-file", results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	loadtest.AsKilled(t, results)
	out, err := run("--resume", results, "--pg", s.pg)
	if err == nil || !strings.Contains(out, "--dedup") || !strings.Contains(out, "--accept-duplicates") || !strings.Contains(out, "stored twice") {
		t.Fatalf("resume without DEDUP after a kill: %v\n%s", err, out)
	}
	out, err = run("--resume", results, "--pg", s.pg, "--accept-duplicates")
	if err != nil || !strings.Contains(out, "their rows may be stored twice") {
		t.Fatalf("resume accepting duplicates: %v\n%s", err, out)
	}

	// With --dedup, into a table QuestDB created itself on first write
	// (no use case names it): no DEDUP either.
	loadtest.DropQuestDBTables(t, s.http, table)
	results = filepath.Join(dir, "r2.json")
	if out, err := run("--file", in, "--batch-size", "100", "--http-url", s.http, "--pg", s.pg, "--dedup", "--results-file", results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	loadtest.AsKilled(t, results)
	out, err = run("--resume", results, "--pg", s.pg)
	if err == nil || !strings.Contains(out, "table \""+table+"\" has no DEDUP") || !strings.Contains(out, "--accept-duplicates") {
		t.Fatalf("resume into an auto-created table: %v\n%s", err, out)
	}
}
