package cnosdb

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
)

// TestContentWaitsForColumns: the cause of TestRunnerContent's CI failure
// ("field u count expected 1, found 0" on a clean load) is CnosDB 2.4.2
// acknowledging a write that adds a column before DESCRIBE TABLE lists it,
// when another write changed the table's schema at the same time (two
// batches written concurrently into a new table: 2 tables in 95 with curl,
// docs/loaders/cnosdb.md; count(u) found the value, DESCRIBE listed u two
// seconds later). Content waits for the columns the load wrote: here u is
// added only after Content has started, and is found. Without the wait it
// is not (a slow machine that starts Content late passes either way).
func TestContentWaitsForColumns(t *testing.T) {
	tg := realTarget(t, nil)
	ctx := context.Background()
	w, err := tg.NewWriter(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write(ctx, batch("m,host=a f=1.5 1000000000\n", 1)); err != nil {
		t.Fatal(err)
	}
	late := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, err := w.Write(ctx, batch("m,host=b u=7u 2000000000\n", 2))
		late <- err
	}()
	q := fingerprint.Query{Table: "m", Time: "time", Tags: []string{"host"}, Fields: []fingerprint.FieldQuery{
		{Name: "f", Kind: fingerprint.Float}, {Name: "u", Kind: fingerprint.Uint}}}
	got, err := tg.Content(ctx, []fingerprint.Query{q})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-late; err != nil {
		t.Fatal(err)
	}
	for _, f := range got["m"].Fields {
		if f.Name == "u" && f.Count == 1 {
			return
		}
	}
	t.Fatalf("column u, written while Content ran, not found: %+v", got["m"].Fields)
}
