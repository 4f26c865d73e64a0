package loadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/schema"
)

// RefusedInput checks that input a loader cannot load changes nothing in
// the database, even with --drop-db: a first run loads one ILP row into
// Table; a second run, with --drop-db, gives a CSV (or pgcopy) of the same table, which
// the loader must refuse (the error holding WantErr) before it drops
// anything; the table must still hold its row.
type RefusedInput struct {
	Spec    loadcli.Spec
	Args    []string // connection and --db-name flags, for both runs
	BadArgs []string // more flags for the second run
	Table   string
	WantErr string
	// PGCopy gives a pgcopy file of the table as the bad input instead of
	// the CSV (loaders of line protocol write CSV as lines).
	PGCopy bool
	// Count returns the rows in Table.
	Count func(t testing.TB) int64
}

// Run runs both loads and checks the count.
func (r RefusedInput) Run(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ilp")
	bad := filepath.Join(dir, "bad.csv")
	results := filepath.Join(dir, "results.json")
	os.WriteFile(good, []byte(fmt.Sprintf("%s,host=a usage=1 1451606400000000000\n", r.Table)), 0o644)
	os.WriteFile(bad, []byte(fmt.Sprintf("#tsload-csv v1\n#table %s time:timestamptz,host:text,usage:float8\n#data %[1]s\n2016-01-01T00:00:10Z,b,2\n", r.Table)), 0o644)
	if r.PGCopy {
		bad = filepath.Join(dir, "bad.pgcopy")
		os.WriteFile(bad, pgcopyRow(t, r.Table), 0o644)
	}
	args := append([]string{r.Spec.Name, "--results-file", results}, r.Args...)
	RunCLI(t, r.Spec, append(args[:len(args):len(args)], "--file", good), results, "")
	if n := r.Count(t); n != 1 {
		t.Fatalf("after the first load %s has %d rows, want 1", r.Table, n)
	}
	second := append(append(args[:len(args):len(args)], r.BadArgs...), "--drop-db", "--file", bad)
	run := RunCLI(t, r.Spec, second, results, r.WantErr)
	if n := r.Count(t); n != 1 {
		t.Fatalf("the refused input (%v) changed %s: %d rows, want the 1 row loaded before", run.Err, r.Table, n)
	}
}

// pgcopyRow is a tsload pgcopy file (with its table chunk) of one row of
// table (time, host tag, usage).
func pgcopyRow(t *testing.T, table string) []byte {
	tb := &schema.Table{Name: table, Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true}, {Name: "usage", Type: schema.Float8}}}
	e, err := pgcopy.New([]*schema.Table{tb}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := e.StreamHeader(nil)
	if out, err = e.AppendRow(out, &format.Row{Time: 1451606410e9, Tags: [][]byte{[]byte("b")}, Float: []float64{2}}); err != nil {
		t.Fatal(err)
	}
	return e.StreamTrailer(out)
}
