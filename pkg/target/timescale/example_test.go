package timescale_test

import (
	"fmt"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/target/timescale"
)

// The method actually used depends on the input format; a method that cannot
// carry the input is an error before anything is sent.
func ExampleMethod_For() {
	for _, f := range []format.Format{format.PGCopy, format.CSV, format.ILP} {
		m, _ := timescale.MethodAuto.For(f)
		fmt.Printf("%s: %s\n", f, m)
	}
	_, err := timescale.MethodCopyBinary.For(format.CSV)
	fmt.Println(err)
	// Output:
	// pgcopy: copy-binary
	// csv: copy-csv
	// ilp: copy-binary
	// Method copy-binary needs pgcopy or ILP input, not csv (use copy-csv, insert-multi or insert)
}
