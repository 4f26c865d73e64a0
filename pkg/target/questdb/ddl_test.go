package questdb

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestCreateTableSQLGolden pins the DDL of every use case's tables.
func TestCreateTableSQLGolden(t *testing.T) {
	var b strings.Builder
	for _, uc := range usecase.Names {
		tables, err := usecase.Tables(uc)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			b.WriteString("-- " + uc + "\n" + CreateTableSQL(tb, true) + ";\n")
		}
	}
	golden := filepath.Join("testdata", "ddl.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("DDL differs from %s (run with -update after checking):\n%s", golden, b.String())
	}
}

func TestCreateTableSQL(t *testing.T) {
	tb := &schema.Table{Name: `we"ird`, Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp},
		{Name: "id", Type: schema.Int4, Tag: true},
		{Name: "host", Type: schema.Text, Tag: true},
		{Name: "a", Type: schema.Float8}, {Name: "b", Type: schema.Float4},
		{Name: "c", Type: schema.Int8}, {Name: "d", Type: schema.Int4}, {Name: "e", Type: schema.Text},
	}}
	want := `CREATE TABLE IF NOT EXISTS "we""ird" ("timestamp" TIMESTAMP, "id" SYMBOL, "host" SYMBOL, "a" DOUBLE, "b" FLOAT, "c" LONG, "d" INT, "e" VARCHAR) TIMESTAMP("timestamp") PARTITION BY DAY WAL`
	if got := CreateTableSQL(tb, false); got != want {
		t.Errorf("no dedup:\n got %s\nwant %s", got, want)
	}
	if got := CreateTableSQL(tb, true); got != want+` DEDUP UPSERT KEYS("timestamp", "id", "host")` {
		t.Errorf("dedup: %s", got)
	}
}
