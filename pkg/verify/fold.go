package verify

import (
	"fmt"
	"strings"
)

// FoldTables groups the table names (sorted) that the target keeps as
// one table (load.Hooks.FoldName: QuestDB's names are case-insensitive). It
// returns each folded name's group name, the first of the group, and a
// note naming the groups; nil when no two names fold together.
func FoldTables(foldName func(string) string, sorted []string) (canon map[string]string, note string) {
	if foldName == nil {
		return nil, ""
	}
	first := map[string]string{}
	members := map[string][]string{}
	canon = map[string]string{}
	for _, n := range sorted {
		k := foldName(n)
		if _, ok := first[k]; !ok {
			first[k] = n
		}
		canon[n] = first[k]
		members[first[k]] = append(members[first[k]], n)
	}
	var groups []string
	for _, n := range sorted {
		if m := members[n]; len(m) > 1 {
			groups = append(groups, strings.Join(m, " = "))
		}
	}
	if len(groups) == 0 {
		return nil, ""
	}
	return canon, fmt.Sprintf("table names that differ only in case are one table in this database: %s (counted once, with the rows of every spelling)", strings.Join(groups, ", "))
}

// Fold adds up the per-table rows of a under their group names
// (FoldTables).
func (a Acked) Fold(canon map[string]string) Acked {
	f := a
	f.Tables = make(map[string]int64, len(a.Tables))
	for n, rows := range a.Tables {
		f.Tables[canon[n]] += rows
	}
	return f
}
