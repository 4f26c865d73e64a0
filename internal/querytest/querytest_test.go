package querytest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/query"
)

// memory answers with query.Eval over the points it holds: the database a
// target must agree with.
type memory map[string][]query.Point

func (m memory) Query(_ context.Context, q *query.Query) (*query.Answer, error) {
	return query.Eval(q, slices.Values(m[q.Table])), nil
}

func (memory) Close() error { return nil }

// TestCheck: a database holding the file's rows passes every query; one
// whose single stored value differs fails the queries that read it, by
// name, and a declared-unsupported query that is answered is reported.
func TestCheck(t *testing.T) {
	for _, uc := range []string{"cpu-only", "iot"} {
		path, rows := Generate(t, uc)
		points, err := Points(path, "p_")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ps := range points {
			n += len(ps)
		}
		if int64(n) != rows {
			t.Fatalf("%s: %d points read, %d rows generated", uc, n, rows)
		}
		qs := Queries(uc, "p_", points)
		if problems := Check(context.Background(), memory(points), qs, points, nil); len(problems) > 0 {
			t.Fatalf("%s: the reference itself fails:\n%s", uc, strings.Join(problems, "\n"))
		}
		// The newest row of one series changed behind the loader's back.
		changed := memory{}
		for table, ps := range points {
			changed[table] = slices.Clone(ps)
		}
		table, field := "p_cpu", "usage_user"
		if uc == "iot" {
			table, field = "p_readings", "latitude"
		}
		last := 0 // the newest row that has the field
		for i, p := range changed[table] {
			if _, ok := p.Fields[field]; ok && !p.Time.Before(changed[table][last].Time) {
				last = i
			}
		}
		p := changed[table][last]
		p.Fields = map[string]float64{}
		for k, v := range points[table][last].Fields {
			p.Fields[k] = v
		}
		p.Fields[field] += 1000
		changed[table][last] = p
		problems := Check(context.Background(), changed, qs, points, nil)
		if len(problems) == 0 {
			t.Errorf("%s: a changed value went unnoticed", uc)
		}
		for _, pr := range problems {
			if !strings.Contains(pr, "wrong answer") {
				t.Errorf("%s: %s", uc, pr)
			}
		}
		if problems := Check(context.Background(), memory(points), qs[:1], points, []string{qs[0].Name}); len(problems) != 1 {
			t.Errorf("%s: an answered query declared unsupported: %q", uc, problems)
		}
	}
}
