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
