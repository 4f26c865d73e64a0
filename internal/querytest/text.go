package querytest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/query"
)

// Text compares a dialect's statement of each query of Queries and More
// (both use cases, over Sample's rows, no table prefix) with the golden
// file at path, or rewrites the file when update is set (the calling
// package's -update flag). Each query is written as "# " and the query,
// then text's answer (trimmed) and a blank line; a query text refuses is
// written as "unsupported: " and its error, which must wrap
// errors.ErrUnsupported.
func Text(t *testing.T, path string, update bool, text func(*query.Query) (string, error)) {
	t.Helper()
	points := Sample("")
	var qs []*query.Query
	for _, uc := range []string{"cpu-only", "iot"} {
		qs = append(qs, Queries(uc, "", points)...)
		qs = append(qs, More(uc, "", points)...)
	}
	var b strings.Builder
	for _, q := range qs {
		s, err := text(q)
		if err != nil {
			if !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("%s: %v", q.Name, err)
			}
			s = "unsupported: " + err.Error()
		}
		fmt.Fprintf(&b, "# %s\n%s\n\n", q, strings.TrimSpace(s))
	}
	got := b.String()
	if update {
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
