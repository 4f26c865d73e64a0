package questdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// TestQueryText pins QuestDB's statements (testdata/queries.sql; -update
// rewrites it): LATEST ON for Last per group without buckets, package
// sqlquery's statement for the rest.
func TestQueryText(t *testing.T) {
	t0 := time.Date(2016, 1, 4, 0, 0, 0, 0, time.UTC)
	qs := []*query.Query{
		{Name: "lastpoint", Table: "cpu", Fields: []string{"usage_user", "usage_idle"}, Agg: query.Last, GroupBy: []string{"hostname"},
			Where: []query.Match{{Tag: "region", Values: []string{"eu-west-1", "it's"}}}},
		{Name: "last-one", Table: "cpu", Fields: []string{"usage_user"}, Agg: query.Last},
		{Name: "last-per-half-hour", Table: "cpu", Fields: []string{"usage_user"}, Agg: query.Last, GroupBy: []string{"hostname"}, Bucket: 30 * time.Minute},
		{Name: "groupby-orderby-limit", Table: "cpu", Fields: []string{"usage_user"}, Agg: query.Max, Bucket: time.Minute, Limit: 5},
	}
	q := &loadQuerier{d: sqlquery.QuestDB()}
	var b strings.Builder
	for _, qr := range qs {
		qr.Start, qr.End = t0, t0.Add(time.Hour)
		s, lay, err := q.statement(qr, "timestamp")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "-- %s -> %s\n%s;\n\n", qr, strings.Join(lay.Names(), ","), s)
	}
	path := filepath.Join("testdata", "queries.sql")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("the statements differ from %s (go test -update to accept):\n%s", path, b.String())
	}
}
