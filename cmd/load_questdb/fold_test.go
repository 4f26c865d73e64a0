package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestCaseFoldedTables: QuestDB keeps table names that differ only in case
// as one table, so lines of T_Mixed and t_mixed verify as one table holding
// the rows of both spellings (before, the second spelling counted 0 and
// the first twice its rows: a false "another client" failure).
func TestCaseFoldedTables(t *testing.T) {
	httpURL, pg, name := questdbTables(t, "fold_")
	loadtest.DropQuestDBTables(t, httpURL, strings.ToUpper(name))
	var b strings.Builder
	for i := range 300 {
		table := name
		if i%3 == 0 {
			table = strings.ToUpper(name)
		}
		fmt.Fprintf(&b, "%s,host=h%d usage=%d 1451606%03d000000000\n", table, i%5, i, i)
	}
	file, _ := loadtest.InputFile(t, "in.ilp", b.String())
	r, res := loadInto(t, httpURL, pg, "--file", file, "--batch-size", "50")
	if res.Verify == nil || !res.Verify.OK || len(res.Verify.Actual) != 1 || res.Verify.Actual[strings.ToUpper(name)] != 300 ||
		!strings.Contains(res.Verify.Note, "differ only in case") {
		t.Fatalf("verify %+v\n%s", res.Verify, r.Stderr)
	}
}
