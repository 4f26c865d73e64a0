package timescale_test

import (
	"fmt"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/timescale"
)

// The method actually used depends on the input format; a method that cannot
// carry the input is an error before anything is sent.
func ExampleMethod_For() {
	for _, f := range []load.Format{load.FormatPGCopy, load.FormatCSV, load.FormatILP} {
		m, _ := timescale.MethodAuto.For(f)
		fmt.Printf("%s: %s\n", f, m)
	}
	_, err := timescale.MethodCopyBinary.For(load.FormatCSV)
	fmt.Println(err)
	// Output:
	// pgcopy: copy-binary
	// csv: copy-csv
	// ilp: copy-binary
	// --method copy-binary needs pgcopy or ILP input, not csv (use copy-csv, insert-multi or insert)
}
