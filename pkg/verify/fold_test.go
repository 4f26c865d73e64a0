package verify

import (
	"fmt"
	"strings"
	"testing"
)

func ExampleFoldTables() {
	canon, note := FoldTables(strings.ToLower, []string{"CPU", "cpu", "mem"})
	fmt.Println(canon["cpu"], canon["CPU"], canon["mem"])
	fmt.Println(note)
	a := Acked{Tables: map[string]int64{"CPU": 2, "cpu": 3, "mem": 1}, Rows: 6}.Fold(canon)
	fmt.Println(a.Tables["CPU"], a.Tables["mem"], a.Rows)
	// Output:
	// CPU CPU mem
	// table names that differ only in case are one table in this database: CPU = cpu (counted once, with the rows of every spelling)
	// 5 1 6
}

func TestFoldTablesNone(t *testing.T) {
	if canon, note := FoldTables(nil, []string{"a", "A"}); canon != nil || note != "" {
		t.Errorf("no fold: %v %q", canon, note)
	}
	if canon, note := FoldTables(strings.ToLower, []string{"a", "b"}); canon != nil || note != "" {
		t.Errorf("nothing folds together: %v %q", canon, note)
	}
}
