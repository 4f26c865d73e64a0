package ilp_test

import (
	"fmt"

	"github.com/tsload/tsload/pkg/format/ilp"
)

func ExamplePointReader() {
	var r ilp.PointReader
	data := []byte("cpu,host=a usage=1.5,n=2i 1000\ncpu,host=b usage=x 2000\n")
	err := r.Read(data, "in.ilp", 10, func(p *ilp.Point, where func(error) error) error {
		fmt.Printf("%s %s=%s %s=%v at %d\n", p.Measurement, p.Tags[0].Key, p.Tags[0].Value, p.Fields[0].Key, p.Fields[0].Value, p.Time.UnixNano())
		fmt.Println(p.Table("cpu").Columns)
		return nil
	})
	fmt.Println(err)
	// Output:
	// cpu host=a usage=1.5 at 1000
	// [{time timestamptz false} {host text true} {usage float8 false} {n int8 false}]
	// in.ilp: input line 11: field value has unrecognized type
}
