package tabular_test

import (
	"fmt"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/tabular"
)

// A target of lines only is loaded from CSV too (the runner writes it as
// lines); a target that takes ILP and pgcopy keeps its refusal of CSV.
func ExampleLoadable() {
	fmt.Println(tabular.Loadable([]format.Format{format.ILP}))
	fmt.Println(tabular.Loadable([]format.Format{format.ILP, format.PGCopy}))
	fmt.Println(tabular.Loadable([]format.Format{format.PGCopy, format.CSV, format.ILP}))
	// Output:
	// [ilp csv]
	// [ilp pgcopy]
	// [ilp csv pgcopy]
}
