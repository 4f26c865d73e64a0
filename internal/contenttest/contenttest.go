// Package contenttest holds what the targets' content-verification tests
// share: comparing a database's fingerprint with the one worked out by hand.
package contenttest

import (
	"math"
	"reflect"
	"testing"

	"github.com/tsload/tsload/pkg/fingerprint"
)

// Same fails t unless got equals want: every count, sum, length and time
// exactly, float sums within 1e-9 relative (the database adds in its own
// order).
func Same(t testing.TB, got *fingerprint.Table, want fingerprint.Table) {
	t.Helper()
	if got == nil {
		t.Fatalf("no fingerprint for %s", want.Name)
	}
	g, w := *got, want
	g.Fields, w.Fields = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("table %s:\n got %+v\nwant %+v", want.Name, g, w)
	}
	if len(got.Fields) != len(want.Fields) {
		t.Fatalf("table %s fields:\n got %+v\nwant %+v", want.Name, got.Fields, want.Fields)
	}
	for i, f := range got.Fields {
		wf := want.Fields[i]
		if !close(f.Sum, wf.Sum) || !close(f.AbsSum, wf.AbsSum) {
			t.Errorf("table %s field %s: sum %v abs %v, want %v %v", want.Name, f.Name, f.Sum, f.AbsSum, wf.Sum, wf.AbsSum)
		}
		f.Sum, f.AbsSum, wf.Sum, wf.AbsSum = 0, 0, 0, 0
		if f != wf {
			t.Errorf("table %s field:\n got %+v\nwant %+v", want.Name, f, wf)
		}
	}
}

func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}
