package influx_test

import (
	"context"
	"fmt"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// A target asks the server which API it speaks, prepares the database and
// writes line protocol; here an InfluxDB 3 stand-in that wants a token (an
// Example runs everywhere, with no server, and its output is checked).
// With --accept-partial the valid lines of a batch are written and the
// refused ones reported by input line.
func Example_v3() {
	srv := influx3test.New()
	defer srv.Close()
	srv.SetToken("my-token")

	tg, err := influx.New(influx.Config{Conn: httpwrite.Conn{URLs: []string{srv.URL}, Gzip: true, GzipLevel: 1}, Precision: "s", Token: "my-token", AcceptPartial: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tg.Close()
	ctx := context.Background()
	api, _ := tg.API(ctx)
	fmt.Println("api:", api)
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: "demo", CreateDB: true}); err != nil {
		fmt.Println(err)
		return
	}
	w, _ := tg.NewWriter(ctx, 0)
	data := "cpu,host=a usage=1.5 1700000000\ncpu,host=b usage=oops 1700000000\ncpu,host=c usage=2.5 1700000000\n"
	ack, err := w.Write(ctx, &load.Batch{Format: format.ILP, Data: []byte(data), Rows: 3, FirstLine: 101, Source: "demo.ilp"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("written:", ack.Rows, "refused at input line:", ack.Rejected[0].Line)
	n, _ := tg.Count(ctx, []string{"cpu"})
	fmt.Println("cpu rows:", n["cpu"])
	// Output:
	// api: v3
	// written: 2 refused at input line: 102
	// cpu rows: 2
}
