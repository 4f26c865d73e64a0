package questdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

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

// TestResumeRecordsDedup: a resumed run that writes nothing (every batch
// was acknowledged earlier) records DEDUP as its load applied it, found on
// the load's tables, not "false" for tables it did not touch.
func TestResumeRecordsDedup(t *testing.T) {
	s := server(t)
	name := uniqueName(t, "resume_dedup")
	newTarget(t, s, HTTP, true, testTable(name)) // creates the table WITH DEDUP
	tg, err := New(Config{URL: s.http, PG: s.pg, Dedup: true, WALTimeout: time.Minute, Lookup: testTable})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := tg.InDoubt(context.Background(), []string{name}); err != nil {
		t.Fatal(err)
	}
	d := tg.Describe()
	if d.Settings["dedup"] != true || len(d.Tables) != 1 || d.Tables[0].Name != name || !*d.Tables[0].Dedup {
		t.Fatalf("a resumed run that wrote nothing describes dedup %v, tables %+v", d.Settings["dedup"], d.Tables)
	}
}

// TestResumeResultsSayDedup: the results file of a resumed load made with
// DEDUP says dedup true (settings, flags and each table), read from the
// table, whether the resumed run writes nothing (every batch acknowledged
// earlier) or the rest of the load.
func TestResumeResultsSayDedup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	s := server(t)
	table := uniqueName(t, "resume_says_dedup")
	direct := newTarget(t, s, HTTP, true, testTable(table))
	qr, err := direct.withQuerier(context.Background())
	if err == nil {
		_, err = qr.query(context.Background(), CreateTableSQL(testTable(table), true))
	}
	if err != nil {
		t.Fatal(err)
	}
	bin := loadtest.BuildCommand(t, "github.com/tsload/tsload/cmd/load_questdb")
	in := loadtest.RateLines(t, table, 1000)
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	run := func(args ...string) {
		t.Helper()
		if out, err := loadtest.RunCommand(bin, args...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	says := func(when string) {
		t.Helper()
		r := loadtest.ReadResults(t, res)
		if r.Resume == nil {
			t.Fatalf("%s: the results file is not a resumed run's", when)
		}
		if r.Setup == nil || r.Setup.Settings["dedup"] != true || r.Flags["dedup"] != true || len(r.Setup.Tables) != 1 ||
			r.Setup.Tables[0].Name != table || r.Setup.Tables[0].Dedup == nil || !*r.Setup.Tables[0].Dedup {
			t.Fatalf("%s: the results file says flag dedup %v, setup %+v; the table has DEDUP", when, r.Flags["dedup"], r.Setup)
		}
	}
	run("--file", in, "--batch-size", "100", "--http-url", s.http, "--pg", s.pg, "--dedup", "--results-file", res)
	loadtest.AsKilled(t, res)
	run("--resume", res, "--pg", s.pg)
	says("resumed with every batch acknowledged")
}
