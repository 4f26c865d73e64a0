package influx

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/query"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestQueryText compares the InfluxQL and Flux of querytest's queries
// (Queries and More, over its Sample rows) with the golden files
// testdata/queries.influxql and testdata/queries.flux (-update rewrites
// them); a query a dialect refuses is written as its error, which must
// wrap errors.ErrUnsupported.
func TestQueryText(t *testing.T) {
	points := querytest.Sample("")
	var qs []*query.Query
	for _, uc := range []string{"cpu-only", "iot"} {
		qs = append(qs, querytest.Queries(uc, "", points)...)
		qs = append(qs, querytest.More(uc, "", points)...)
	}
	for _, d := range []struct {
		file string
		text func(*query.Query) (string, error)
	}{
		{"queries.influxql", func(q *query.Query) (string, error) { return influxQL(q, quoteIdent(q.Table)) }},
		{"queries.flux", func(q *query.Query) (string, error) { return flux(q, "bucket") }},
	} {
		var b strings.Builder
		for _, q := range qs {
			text, err := d.text(q)
			if err != nil {
				if !errors.Is(err, errors.ErrUnsupported) {
					t.Errorf("%s: %v", q.Name, err)
				}
				text = "unsupported: " + err.Error()
			}
			fmt.Fprintf(&b, "# %s\n%s\n\n", q, strings.TrimSpace(text))
		}
		golden(t, filepath.Join("testdata", d.file), b.String())
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from what the queries make now (go test -update rewrites it):\n%s", path, got)
	}
}
