package pgcopy_test

import (
	"encoding/hex"
	"fmt"

	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/schema"
)

// The header of a single-table stream: COPY's signature, flags, and the
// header extension holding the tsload table chunk.
func ExampleEncoder_StreamHeader() {
	t := &schema.Table{Name: "t", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "h", Type: schema.Text, Tag: true}, {Name: "v", Type: schema.Float8}}}
	e, err := pgcopy.New([]*schema.Table{t}, false)
	if err != nil {
		panic(err)
	}
	h := e.StreamHeader(nil)
	fmt.Println("signature", hex.EncodeToString(h[:11]))
	fmt.Println("flags    ", hex.EncodeToString(h[11:15]))
	fmt.Println("ext len  ", hex.EncodeToString(h[15:19]))
	fmt.Printf("chunk tag %q\n", h[19:32])
	fmt.Println("decl len ", hex.EncodeToString(h[32:36]))
	fmt.Println("decl     ", hex.EncodeToString(h[36:]))
	// Output:
	// signature 5047434f50590aff0d0a00
	// flags     00000000
	// ext len   00000028
	// chunk tag "tsload.table\x00"
	// decl len  00000017
	// decl      0001740003000474696d65010000016802010001760300
}
