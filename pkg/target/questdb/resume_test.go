package questdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/results"
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

// TestResumeAfterRefusedBatch: a load without DEDUP whose 5th batch the
// server refuses (a string for the table's LONG column s: 400, the request
// rolled back) stops with nothing in doubt: the refused batch is not
// written, so --resume, once the column is dropped, is not refused for
// batches in doubt, sends batch 5 and the rest, and ends exact.
func TestResumeAfterRefusedBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	s := server(t)
	table := uniqueName(t, "resume_refused")
	direct := newTarget(t, s, HTTP, true, testTable(table))
	qr, err := direct.withQuerier(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	query := func(sql string) {
		t.Helper()
		if _, err := qr.query(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	query(CreateTableSQL(testTable(table), false))
	query("ALTER TABLE " + quote(table) + " ADD COLUMN s LONG")
	const rows = 1000
	var b strings.Builder
	for i := 0; i < rows; i++ {
		s := ""
		if i == 450 { // in batch 5 of 100 rows
			s = `,s="text"`
		}
		fmt.Fprintf(&b, "%s,host=h%d,region=r%d v=%d.5,n=%di%s %d\n", table, i%7, i%3, i, i, s, int64(1704067200000000000)+int64(i)*1e6)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := loadtest.BuildCommand(t, "github.com/tsload/tsload/cmd/load_questdb")
	res := filepath.Join(dir, "r.json")
	out, err := loadtest.RunCommand(bin, "--file", in, "--batch-size", "100", "--workers", "1", "--http-url", s.http, "--pg", s.pg,
		"--dedup=false", "--wal-timeout", "1m", "--results-file", res)
	if err == nil || !strings.Contains(out, "input line 451") || !strings.Contains(out, "rolled back") {
		t.Fatalf("the load with a refused line: %v\n%s", err, out)
	}
	j, _, err := journal.Read(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.InDoubt) != 0 || j.Rows != 400 {
		t.Fatalf("after the refusal the journal holds %d rows acknowledged, in doubt %+v; want 400 and none", j.Rows, j.InDoubt)
	}
	query("ALTER TABLE " + quote(table) + " DROP COLUMN s")
	out, err = loadtest.RunCommand(bin, "--resume", res, "--pg", s.pg)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	r := loadtest.ReadResults(t, res)
	if r.Status != results.StatusOK || r.Verify == nil || !r.Verify.OK || r.Resume == nil || r.Resume.InDoubt != 0 || r.Resume.SkippedRows != 400 || r.Rows != rows-400 {
		t.Fatalf("resumed: status %s, verify %+v, resume %+v, %d rows\n%s", r.Status, r.Verify, r.Resume, r.Rows, out)
	}
}
