package query

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)

func ExampleDiff() {
	want := &Answer{Rows: []Row{
		{Group: []string{"host_0"}, Time: t0, Values: []float64{41.5}},
		{Group: []string{"host_0"}, Time: t0.Add(time.Minute), Values: []float64{42}},
	}}
	got := &Answer{Rows: []Row{
		{Group: []string{"host_0"}, Time: t0.Add(time.Minute), Values: []float64{43}},
		{Group: []string{"host_0"}, Time: t0, Values: []float64{41.5}},
	}}
	got.Sort()
	fmt.Println(Diff(want, got, 1e-9))
	// Output: row 1 is {host_0 2016-01-01T00:01:00Z 43}, want {host_0 2016-01-01T00:01:00Z 42}
}

func TestDiff(t *testing.T) {
	row := func(v float64) Row { return Row{Group: []string{"a"}, Time: t0, Values: []float64{v}} }
	for _, tc := range []struct {
		name      string
		want, got []Row
		diff      string // substring; "" means they agree
	}{
		{"equal", []Row{row(1)}, []Row{row(1)}, ""},
		{"within tolerance", []Row{row(1)}, []Row{row(1 + 1e-12)}, ""},
		{"both NULL", []Row{row(math.NaN())}, []Row{row(math.NaN())}, ""},
		{"NULL against a value", []Row{row(math.NaN())}, []Row{row(0)}, "row 0"},
		{"value", []Row{row(1)}, []Row{row(1.001)}, "row 0"},
		{"missing", []Row{row(1), row(2)}, []Row{row(1)}, "missing"},
		{"extra", []Row{row(1)}, []Row{row(1), row(2)}, "extra"},
		{"group", []Row{row(1)}, []Row{{Group: []string{"b"}, Time: t0, Values: []float64{1}}}, "row 0"},
		{"time", []Row{row(1)}, []Row{{Group: []string{"a"}, Time: t0.Add(time.Second), Values: []float64{1}}}, "row 0"},
	} {
		d := Diff(&Answer{Rows: tc.want}, &Answer{Rows: tc.got}, 1e-9)
		if (d == "") != (tc.diff == "") || !strings.Contains(d, tc.diff) {
			t.Errorf("%s: Diff = %q, want %q", tc.name, d, tc.diff)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Query{Name: "q", Table: "cpu", Fields: []string{"usage_user"}, Start: t0, End: t0.Add(time.Hour), Agg: Max, Bucket: time.Minute}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid query: %v", err)
	}
	for name, edit := range map[string]func(*Query){
		"no table":         func(q *Query) { q.Table = "" },
		"no field":         func(q *Query) { q.Fields = nil },
		"empty window":     func(q *Query) { q.End = q.Start },
		"rows with bucket": func(q *Query) { q.Agg = Rows },
		"odd bucket":       func(q *Query) { q.Bucket = 7 * time.Minute },
		"unknown agg":      func(q *Query) { q.Agg = 99 },
		"negative limit":   func(q *Query) { q.Limit = -1 },
	} {
		q := ok
		edit(&q)
		if err := q.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %s", name, q.String())
		}
	}
}
