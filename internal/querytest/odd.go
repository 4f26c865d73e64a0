package querytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// OddTable is the measurement of OddFile: a name that needs quoting.
const OddTable = "Odd-Table"

// OddTags are OddFile's host tag values: quotes of both kinds, a space, a
// comma, an equals sign, a dollar sign and non-ASCII text (no backslash:
// the databases read escapes in line protocol differently), each a value a
// dialect must quote or escape.
var OddTags = []string{`it's`, `say "hi"`, `a b`, `x,y=z`, `dollar$1`, `Zürich`}

// OddFile writes a small line-protocol file of table OddTable (tags
// "host" from OddTags and "Region" in mixed case, fields "a" and "b Field"
// with NULLs) and returns its path and rows.
func OddFile(t testing.TB) (string, int) {
	t.Helper()
	esc := strings.NewReplacer(",", `\,`, " ", `\ `, "=", `\=`)
	var b strings.Builder
	rows := 0
	for i := range 120 {
		host := OddTags[i%len(OddTags)]
		at := start.Add(time.Duration(i) * 7 * time.Second)
		fields := []string{}
		if i%5 != 1 {
			fields = append(fields, fmt.Sprintf("a=%d.25", i%17))
		}
		if i%4 != 2 {
			fields = append(fields, fmt.Sprintf(`b\ Field=%d`, (i*7)%23))
		}
		if len(fields) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s,Region=EU-%d,host=%s %s %d\n", strings.ReplaceAll(OddTable, " ", `\ `), i%2, esc.Replace(host), strings.Join(fields, ","), at.UnixNano())
		rows++
	}
	path := filepath.Join(t.TempDir(), "odd.ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, rows
}

// OddQueries ask OddFile's table (loaded with prefix) for the odd tag
// values by IN lists and groups.
func OddQueries(prefix string) []*query.Query {
	table := prefix + OddTable
	whole := func(q *query.Query) *query.Query { q.Start, q.End = start, start.Add(time.Hour); return q }
	return []*query.Query{
		whole(&query.Query{Name: "odd-last", Table: table, Fields: []string{"a", "b Field"}, Agg: query.Last, GroupBy: []string{"host", "Region"}}),
		whole(&query.Query{Name: "odd-max-in", Table: table, Fields: []string{"b Field"}, Agg: query.Max, GroupBy: []string{"host"},
			Where: []query.Match{{Tag: "host", Values: OddTags[:4]}}, Bucket: 5 * time.Minute}),
		whole(&query.Query{Name: "odd-rows", Table: table, Fields: []string{"a"}, Agg: query.Rows,
			Where: []query.Match{{Tag: "host", Values: OddTags[4:]}, {Tag: "Region", Values: []string{"EU-0", "EU-1"}}}, Filter: &query.Threshold{Field: "a", Value: 3.5}}),
		whole(&query.Query{Name: "odd-last-one", Table: table, Fields: []string{"b Field"}, Agg: query.Last,
			Where: []query.Match{{Tag: "host", Values: OddTags[1:2]}}}),
		whole(&query.Query{Name: "odd-count", Table: table, Fields: []string{"a", "b Field"}, Agg: query.Count, GroupBy: []string{"Region"}, Bucket: 10 * time.Minute, Limit: 2}),
	}
}

// CheckOdd loads OddFile through tg (loader's name, prepare options) with
// a table prefix that needs quoting too, and checks tg's answers to
// OddQueries against query.Eval.
func CheckOdd(t *testing.T, tg load.Target, loader string, prep load.PrepareOptions) {
	t.Helper()
	path, rows := OddFile(t)
	prefix := "Q-odd_"
	ask(t, tg, OddQueries(prefix), loadFile(t, tg, loader, prep, path, prefix, 50, int64(rows)), nil)
}
