package main

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/servertest"
	"github.com/tsload/tsload/pkg/format"
)

// TestTablePrefix loads a cpu-only ILP file and then the same data as
// pgcopy into one database with --table-prefix: both go to P+cpu (the ILP
// run creates it from the use case's schema, the prefix taken off for the
// lookup, so the pgcopy tuples fit it), each run verifies under the
// prefixed name, and no table "cpu" exists.
func TestTablePrefix(t *testing.T) {
	base, db := freshDB(t, "tsload_prefix")
	dir := t.TempDir()
	ilpFile, rows := gentest.GenFile(t, dir, "cpu.ilp", "cpu-only", format.ILP, 4, time.Hour)
	copyFile, _ := gentest.GenFile(t, dir, "cpu.pgcopy", "cpu-only", format.PGCopy, 4, time.Hour)
	const prefix = "run7_"
	for i, file := range []string{ilpFile, copyFile} {
		r, res := loadInto(t, base, db, "", "--file", file, "--table-prefix", prefix)
		v := res.Verify
		if v == nil || !v.OK || len(v.Actual) != 1 || v.Before[prefix+"cpu"] != int64(i)*rows || v.Actual[prefix+"cpu"] != int64(i+1)*rows {
			t.Fatalf("%s: verify %+v\n%s", file, v, r.Stderr)
		}
	}
	conn := servertest.PGConnectDB(t, db)
	var plain, prefixed *string
	if err := conn.QueryRow(context.Background(), "SELECT to_regclass('cpu')::text, to_regclass('"+prefix+"cpu')::text").Scan(&plain, &prefixed); err != nil {
		t.Fatal(err)
	}
	if plain != nil || prefixed == nil {
		t.Errorf("tables: cpu %v, %scpu %v", plain, prefix, prefixed)
	}
}
