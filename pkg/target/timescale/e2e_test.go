package timescale

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	csvformat "github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/schema"
)

// genFile writes a generated data set and returns its path and row counts.
func genFile(t testing.TB, useCase string, f format.Format, scale int, maxRows int64, gz bool) (string, gen.Stats) {
	t.Helper()
	base := useCase
	if useCase == "cpu-only" {
		base = "cpu" // a single-table file names its table
	}
	name := filepath.Join(t.TempDir(), base+gen.Extension(f))
	if gz {
		name += ".gz"
	}
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: useCase, Format: f, Seed: 7, Scale: scale, MaxRows: maxRows, File: name, Workers: 1,
		Start: time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2016, 1, 2, 0, 0, 0, 0, time.UTC),
		Stderr: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	return name, st
}

type runCase struct {
	method    Method
	commit    Commit
	batch     int
	workers   int
	hash      bool
	unlogged  bool
	plain     bool // --use-hypertable=false
	createIdx Indexes
}

// runLoad loads file through runner.Run into a fresh database and checks the
// results: status ok, every generated row acknowledged and verified.
func runLoad(t *testing.T, file string, st gen.Stats, c runCase) *Target {
	t.Helper()
	requireServer(t)
	cfg := Config{URL: pgURL(), DBName: testDBName(t), Method: c.method, Commit: c.commit, Unlogged: c.unlogged, CreateIndexes: c.createIdx}
	cfg.UseHypertable = hypertableMode()
	if c.unlogged || c.plain {
		cfg.UseHypertable = "false"
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(); dropDB(t, cfg.DBName) })
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: c.batch, Workers: c.workers, HashWorkers: c.hash,
		DoLoad: true, Verify: true, ReportingPeriod: time.Second, RetryTimeout: 10 * time.Second,
		Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
		Stderr:  &stderr, Loader: "load_timescale", Target: "timescale",
	}, tg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if res.Status != results.StatusOK || res.Rows != st.Rows || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("status %s rows %d (generated %d) verify %+v\n%s", res.Status, res.Rows, st.Rows, res.Verify, stderr.String())
	}
	for _, tr := range st.Tables {
		if res.Verify.Actual[tr.Name] != tr.Rows {
			t.Fatalf("table %s: %d rows in the database, generated %d", tr.Name, res.Verify.Actual[tr.Name], tr.Rows)
		}
		checkTableKind(t, tg, tr.Name, cfg.UseHypertable == "false")
		if c.createIdx != "" {
			// "after": the runner called Finish (load.Hooks.Finish) before Count.
			var n int
			if err := dbConn(t, cfg.DBName).QueryRow(context.Background(), "SELECT count(*) FROM pg_indexes WHERE indexname = $1", tr.Name+"_tsload_idx").Scan(&n); err != nil || n != 1 {
				t.Fatalf("--create-indexes=%s: %d indexes on %s (%v)", c.createIdx, n, tr.Name, err)
			}
		}
	}
	return tg
}

// tableDigest is an md5 of every row of table in a fixed order.
func tableDigest(t testing.TB, db string, tb *schema.Table) string {
	conn := dbConn(t, db)
	order := "time"
	for _, tag := range tb.Tags() {
		order += ", " + schema.QuoteIdent(tag)
	}
	var s string
	q := fmt.Sprintf("SELECT md5(string_agg(r::text, E'\\n' ORDER BY %s)) FROM %s r", order, schema.QuoteIdent(tb.Name))
	if err := conn.QueryRow(context.Background(), q).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunnerEndToEnd(t *testing.T) {
	requireServer(t)
	cases := map[format.Format][]runCase{
		format.PGCopy: {
			{method: MethodCopyBinary, batch: 500, workers: 2},
			{method: MethodCopyBinary, batch: 7, workers: 3, hash: true},
			{method: MethodCopyBinary, batch: 500, workers: 2, plain: true},
			{method: MethodInsertMulti, batch: 1000, workers: 1, createIdx: "after"},
			{method: MethodInsert, commit: CommitRow, batch: 300, workers: 2},
		},
		format.CSV: {
			{method: MethodCopyCSV, batch: 700, workers: 2, unlogged: true},
			{method: MethodInsertMulti, batch: 5000, workers: 2, createIdx: "before"},
			{method: MethodInsert, batch: 250, workers: 1},
		},
		format.ILP: {
			{method: MethodAuto, batch: 500, workers: 2, hash: true},
			{method: MethodAuto, batch: 500, workers: 2, plain: true},
			{method: MethodInsertMulti, commit: CommitRow, batch: 999, workers: 2},
		},
	}
	for _, useCase := range []string{"cpu-only", "devops"} {
		prints := map[string]string{}
		for _, f := range []format.Format{format.PGCopy, format.CSV, format.ILP} {
			file, st := genFile(t, useCase, f, 3, 2500, f == format.CSV)
			for _, c := range cases[f] {
				if useCase == "devops" && (c.method == MethodInsert || c.plain) {
					continue // the slowest method, and plain tables, once is enough
				}
				name := fmt.Sprintf("%s/%s/%s/%s/b%d/w%d", useCase, f, c.method, c.commit, c.batch, c.workers)
				if c.plain || c.unlogged {
					name += "/plain"
				}
				t.Run(name, func(t *testing.T) {
					tg := runLoad(t, file, st, c)
					// The same data set loads to the same rows whatever the
					// format and method.
					for _, tr := range st.Tables {
						tb := tg.table(tr.Name)
						if tb == nil {
							t.Fatalf("table %s unknown to the target", tr.Name)
						}
						fp := tableDigest(t, tg.cfg.DBName, tb.t)
						if prev, ok := prints[tr.Name]; ok && prev != fp {
							t.Fatalf("table %s differs from the first load of the same data (%s vs %s)", tr.Name, fp, prev)
						}
						prints[tr.Name] = fp
					}
				})
			}
		}
	}
}

// TestRunnerValuesMatchCSV reads a sample of generated CSV records and
// compares them with the rows loaded from the pgcopy file of the same seed.
func TestRunnerValuesMatchCSV(t *testing.T) {
	requireServer(t)
	csvFile, _ := genFile(t, "cpu-only", format.CSV, 2, 400, false)
	pgFile, st := genFile(t, "cpu-only", format.PGCopy, 2, 400, false)
	tg := runLoad(t, pgFile, st, runCase{method: MethodCopyBinary, batch: 100, workers: 2})
	data, err := os.ReadFile(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	tb := cpuTable()
	fields := make([][]byte, len(tb.Columns))
	scratch := make([]byte, 0, len(data))
	off, _, err := csvformat.ParseRecord(data, 0, fields, &scratch) // header
	if err != nil || string(fields[0]) != "time" {
		t.Fatalf("header %q %v", fields, err)
	}
	conn := dbConn(t, tg.cfg.DBName)
	checked := 0
	for rec := 1; off < len(data); rec++ {
		if off, _, err = csvformat.ParseRecord(data, off, fields, &scratch); err != nil {
			t.Fatal(err)
		}
		if rec%37 != 1 {
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, string(fields[0]))
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(tb.Columns))
		ptrs := make([]any, len(tb.Columns))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		q := "SELECT * FROM cpu WHERE time = $1 AND hostname = $2"
		if err := conn.QueryRow(context.Background(), q, ts, string(fields[1])).Scan(ptrs...); err != nil {
			t.Fatalf("record %d: %v", rec, err)
		}
		for i, c := range tb.Columns {
			var want any
			switch {
			case fields[i] == nil:
				want = nil
			case c.Type == schema.Timestamp:
				want = ts
			case c.Type == schema.Float8:
				want, _ = strconv.ParseFloat(string(fields[i]), 64)
			default:
				want = string(fields[i])
			}
			if !sameValue(want, vals[i]) {
				t.Fatalf("record %d column %s: database %v, csv %v", rec, c.Name, vals[i], want)
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d records checked", checked)
	}
}

// TestRunnerErrorNamesPositionOnce: a refused batch's error carries the
// batch position once (the runner's prefix) and the input line the
// server's answer points at (the target's part).
func TestRunnerErrorNamesPositionOnce(t *testing.T) {
	requireServer(t)
	file, _ := genFile(t, "cpu-only", format.CSV, 2, 40, false)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Input line 13 (record 12) gets a bad float in its last column.
	lines[12] = lines[12][:strings.LastIndexByte(lines[12], ',')+1] + "notafloat\n"
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{URL: pgURL(), DBName: testDBName(t), Method: MethodCopyCSV, UseHypertable: hypertableMode()}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(); dropDB(t, cfg.DBName) })
	_, err = runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: 10, Workers: 1, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: time.Second,
		Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
		Stderr:  io.Discard, Loader: "load_timescale", Target: "timescale",
	}, tg)
	if err == nil {
		t.Fatal("a bad value loaded")
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	for _, want := range []string{file + ": records 11-20 (line 12, byte offset ", "): timescale: ", "input line 13", "SQLSTATE 22P02"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if n := strings.Count(msg, file); n != 1 {
		t.Errorf("the input is named %d times", n)
	}
	if n := strings.Count(msg, "records "); n != 1 {
		t.Errorf("a batch position appears %d times", n)
	}
}
